package mux

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// The shared side tells the views of each pane added, started, whose
// close ended, removed and needing attention, through Views.
func TestSharedSideTellsTheViews(t *testing.T) {
	b := newFakeBackend()
	s, v := newTestShared(t, b, 2, Config{})
	v.looking = s.Grid()[0]
	for _, p := range s.Grid() {
		t.Cleanup(func() { p.Screen().Close() }) // a removed pane's too
	}

	_, open, err := s.Open(PaneSpec{Name: paneName(2), Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range runNow(open) {
		update(s, msg)
	}
	opened := s.Grid()[2]
	t.Cleanup(func() { opened.Screen().Close() })
	// bpane's command ends well while the view looks at apane.
	update(s, infosMsg{infos: []session.Info{{ID: b.Sessions[1].ID(), State: session.Exited, ExitKnown: true}}})
	closing, err := s.ClosePane(s.Grid()[0].ID(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range runNow(closing) {
		update(s, msg)
	}

	want := []string{"started cpane", "added cpane", "attention bpane", "closed apane", "removed apane"}
	for _, w := range want {
		if !slices.Contains(v.told, w) {
			t.Errorf("the views were not told %q; they were told %q", w, v.told)
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

// The shared side's own messages (the sessions' infos, the debounced
// resize of the PTYs, the state timer) call nothing that blocks in
// Update: whatever blocks is in the commands they return.
func TestSharedMessagesMakeNoBlockingCalls(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 4, Config{})
	s.clients.(*stubViews).size = providers.Size{Cols: 60, Rows: 20}
	for i, p := range s.Grid() {
		p.resizeEmulator(s.clients.BodySize(i)) // as a view's new layout does
	}
	msgs := []tea.Msg{infosMsg{infos: b.List()}, resizePTYMsg{gen: s.resizeGen}, stateMsg{}}
	before := b.Total()
	for i, msg := range msgs {
		if cmd := update(s, msg); i == 1 && cmd == nil {
			t.Error("the PTYs' resize returned no command: it proves nothing")
		}
		if got := b.Total(); got != before {
			t.Fatalf("Update(%T) made %d blocking call(s): %v", msg, got-before, b.Calls)
		}
	}
}
