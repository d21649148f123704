package mux

import (
	"fmt"
	"slices"
	"strings"
)

// Pane names and states as a busy grid shows them: prefix , renames the
// focused pane (its name is shared by every client and ctl), each state
// has a colour of its own in unfocused titles, and the status line counts
// the panes in each state (state.go decides them).

// Rename gives pane i a new name; a blank one keeps the old.
func (s *Shared) Rename(i int, name string) {
	if name = strings.TrimSpace(name); name == "" {
		return
	}
	s.panes[i].spec.Name = s.uniqueName(name, s.panes[i])
	s.Emit(Event{Kind: EventPhase, Pane: s.InfoAt(i), Detail: "renamed"})
}

// uniqueName is name, or name-2, name-3… when a pane other than self
// has it: ctl and the session list find a pane by its name, and two
// panes of one name are neither's.
func (s *Shared) uniqueName(name string, self *Pane) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(s.panes, func(p *Pane) bool { return p != self && p.spec.Name == n })
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
