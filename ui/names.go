package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/termsafe"
)

// Pane names and states as a busy grid shows them: prefix , renames the
// focused pane (its name is shared by every client and ctl), each state
// has a colour of its own in unfocused titles, and the status line counts
// the panes in each state (state.go decides them).

// maxName bounds a name typed in the rename prompt, in bytes.
const maxName = 64

func (v *view) startRename() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	v.modal = &renameModal{key: p.key, text: p.spec.Name}
	return nil
}

// renameInput handles a key of the rename prompt: enter keeps the name,
// esc drops it.
func (v *view) renameInput(msg tea.KeyPressMsg) tea.Cmd {
	r := v.rename()
	if r == nil {
		v.modal = nil
		return nil
	}
	switch msg.String() {
	case "enter":
		v.modal = nil
		if i := v.m.indexOf(r.key); i >= 0 {
			v.m.rename(i, r.text)
		}
	case "esc", "ctrl+c":
		v.modal = nil
	case "backspace":
		r.text = dropLastRune(r.text)
	default:
		if len(r.text)+len(msg.Text) <= maxName {
			r.text += msg.Text
		}
	}
	return nil
}

// rename gives pane i a new name; a blank one keeps the old.
func (m *Model) rename(i int, name string) {
	if name = strings.TrimSpace(name); name == "" {
		return
	}
	m.panes[i].spec.Name = m.uniqueName(name, m.panes[i])
	m.emit(Event{Kind: EventPhase, Pane: m.paneInfo(i), Detail: "renamed"})
}

// uniqueName is name, or name-2, name-3… when a pane other than self
// has it: ctl and the session list find a pane by its name, and two
// panes of one name are neither's.
func (m *Model) uniqueName(name string, self *pane) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(m.panes, func(p *pane) bool { return p != self && p.spec.Name == n })
	}
	if !taken(name) {
		return name
	}
	for k := 2; ; k++ { // ends: fewer panes than names tried
		if n := fmt.Sprintf("%s-%d", name, k); !taken(n) {
			return n
		}
	}
}

func (v *view) renamePrompt(r *renameModal) string {
	return overlayStyle.Render(fmt.Sprintf("Rename pane %d: %s▏\n\nenter keeps it, esc leaves the name as it was",
		v.m.indexOf(r.key)+1, termsafe.String(r.text)))
}

// stateStyles colour an unfocused pane's title by its state, so that a
// grid of twenty says at a glance which needs the user, which works and
// which ended well or not.
var stateStyles = map[status.State]lipgloss.Style{
	status.Working:      titleStyle,
	status.Idle:         lipgloss.NewStyle().Foreground(lipgloss.Color("250")).Background(lipgloss.Color("238")),
	status.Waiting:      lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("220")).Bold(true),
	status.Done:         lipgloss.NewStyle().Foreground(lipgloss.Color("231")).Background(lipgloss.Color("22")),
	status.Failed:       titleFailed,
	status.Disconnected: lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("178")),
	status.Closing:      lipgloss.NewStyle().Foreground(lipgloss.Color("231")).Background(lipgloss.Color("90")),
}

// stateCounts is the status line's "3 working · 1 waiting · 1 failed", in
// status.States' order: what needs the user first.
func (v *view) stateCounts() string {
	var n [16]int
	for _, p := range v.m.panes {
		if i := slices.Index(status.States, p.state().State); i >= 0 {
			n[i]++
		}
	}
	var parts []string
	for i, s := range status.States {
		if n[i] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[i], s))
		}
	}
	return strings.Join(parts, " · ")
}
