package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/sandmux/sandmux/status"
)

// Pane names and states as a busy grid shows them: prefix , renames the
// focused pane (its name is shared by every client and ctl), each state
// has a colour of its own in unfocused titles, and the status line counts
// the panes in each state (state.go decides them).

// rename gives pane i a new name; a blank one keeps the old.
func (s *shared) rename(i int, name string) {
	if name = strings.TrimSpace(name); name == "" {
		return
	}
	s.panes[i].spec.Name = s.uniqueName(name, s.panes[i])
	s.emit(Event{Kind: EventPhase, Pane: s.paneInfo(i), Detail: "renamed"})
}

// uniqueName is name, or name-2, name-3… when a pane other than self
// has it: ctl and the session list find a pane by its name, and two
// panes of one name are neither's.
func (s *shared) uniqueName(name string, self *pane) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(s.panes, func(p *pane) bool { return p != self && p.spec.Name == n })
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
