package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/sandmux/sandmux/termsafe"
)

// Pane names and states as a busy grid shows them: prefix , renames the
// focused pane (its name is shared by every client and ctl), each state
// has a colour of its own in unfocused titles, and the status line counts
// the panes in each state.

// maxName bounds a name typed in the rename prompt, in bytes.
const maxName = 64

func (v *view) startRename() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	v.modal, v.renameKey, v.renameText = modalRename, p.key, p.spec.Name
	return nil
}

// renameInput handles a key of the rename prompt: enter keeps the name,
// esc drops it.
func (v *view) renameInput(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		v.modal = modalNone
		if i := v.m.indexOf(v.renameKey); i >= 0 {
			v.m.rename(i, v.renameText)
		}
	case "esc", "ctrl+c":
		v.modal = modalNone
	case "backspace":
		if r := []rune(v.renameText); len(r) > 0 {
			v.renameText = string(r[:len(r)-1])
		}
	default:
		if len(v.renameText)+len(msg.Text) <= maxName {
			v.renameText += msg.Text
		}
	}
	return nil
}

// rename gives pane i a new name; a blank one keeps the old.
func (m *Model) rename(i int, name string) {
	if name = strings.TrimSpace(name); name == "" {
		return
	}
	m.panes[i].spec.Name = name
	m.emit(Event{Kind: EventState, Pane: m.paneInfo(i), Detail: "renamed"})
}

func (v *view) renamePrompt() string {
	return overlayStyle.Render(fmt.Sprintf("Rename pane %d: %s▏\n\nenter keeps it, esc leaves the name as it was",
		v.m.indexOf(v.renameKey)+1, termsafe.String(v.renameText)))
}

// stateStyles colour an unfocused pane's title by its state, so that a
// grid of twenty says at a glance which ran, which ended well and which
// did not.
var stateStyles = map[string]lipgloss.Style{
	"running":      titleStyle,
	"exited 0":     lipgloss.NewStyle().Foreground(lipgloss.Color("231")).Background(lipgloss.Color("22")),
	"exited":       lipgloss.NewStyle().Foreground(lipgloss.Color("231")).Background(lipgloss.Color("88")),
	"killed":       lipgloss.NewStyle().Foreground(lipgloss.Color("231")).Background(lipgloss.Color("90")),
	"failed":       titleFailed,
	"disconnected": lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("178")),
}

// stateWord is the state a pane's title colour and the status line's
// counts go by.
func (p *pane) stateWord() string {
	switch {
	case p.alert != nil:
		return "failed"
	case p.phase == phaseExited && p.info.Disconnected:
		return "disconnected"
	case p.phase == phaseExited && p.info.ExitKnown && p.info.Exit.ShellCode() == 0:
		return "exited 0"
	}
	return stateNames[p.phase]
}

// stateOrder is the order the status line counts states in.
var stateOrder = []string{"starting", "running", "exited 0", "exited", "disconnected", "closing", "killed", "failed", "closed"}

// stateCounts is the status line's "3 running · 1 exited 0 · 1 failed".
func (v *view) stateCounts() string {
	n := map[string]int{}
	for _, p := range v.m.panes {
		n[p.stateWord()]++
	}
	var parts []string
	for _, s := range stateOrder {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return strings.Join(parts, " · ")
}
