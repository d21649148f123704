package ui

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// seenViews is the Model's paneViews, noting each event the shared side
// tells it.
type seenViews struct {
	*Model
	events []string
}

func (s *seenViews) PaneAdded(p *pane) tea.Cmd {
	s.events = append(s.events, "added "+p.Spec().Name)
	return s.Model.PaneAdded(p)
}

func (s *seenViews) PaneRemoved(key, i int) tea.Cmd {
	s.events = append(s.events, "removed "+paneName(key))
	return s.Model.PaneRemoved(key, i)
}

func (s *seenViews) PaneChanged(p *pane, c mux.Change) {
	s.events = append(s.events, map[mux.Change]string{mux.ChangeStarted: "started ", mux.ChangeClosed: "closed "}[c]+p.Spec().Name)
	s.Model.PaneChanged(p, c)
}

func (s *seenViews) NeedsAttention(p *pane, info *PaneInfo) bool {
	s.events = append(s.events, "attention "+p.Spec().Name)
	return s.Model.NeedsAttention(p, info)
}

// The shared side tells the views of each pane added, started, whose
// close ended, removed and needing attention, through paneViews.
func TestSharedSideTellsTheViews(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	seen := &seenViews{Model: m}
	m.clients = seen
	for _, p := range m.Grid() {
		t.Cleanup(func() { p.Screen().Close() }) // a removed pane's too
	}

	_, open := m.Open(mux.PaneSpec{Name: paneName(2), Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
	for _, msg := range runNow(open) {
		m.Update(msg)
	}
	opened := m.Grid()[2]
	t.Cleanup(func() { opened.Screen().Close() })
	// bpane's command ends well while view 0 looks at apane.
	m.Update(infosMsg{infos: []session.Info{{ID: b.sessions[1].id, State: session.Exited, ExitKnown: true}}})
	closing, err := m.ClosePane(m.Grid()[0].ID(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range runNow(closing) {
		m.Update(msg)
	}

	want := []string{"started cpane", "added cpane", "attention bpane", "closed apane", "removed apane"}
	for _, w := range want {
		if !slices.Contains(seen.events, w) {
			t.Errorf("the views were not told %q; they were told %q", w, seen.events)
		}
	}
}

// runNow runs cmd and every command it batches, one after another, and
// returns their messages: for commands that never wait (no watch).
func runNow(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for _, c := range batch {
		out = append(out, runNow(c)...)
	}
	return out
}
