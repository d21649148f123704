package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
)

// A read-only client never sizes the panes (A2), not even as the first
// or the last client left; a client that types does (A3).
func TestContract_A2_ReadOnlyViewNeverSizes(t *testing.T) {
	b := newFakeBackend()
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, b, []mux.PaneSpec{{Name: "a", Provider: "local"}})
	m.SetClock(fixedNow)
	screenSize := func() (int, int) { return m.Grid()[0].Screen().Size() }

	_, starts := m.Update(StartMsg{Width: 80, Height: 24})
	for _, c := range drain(t, m, starts) {
		m.Update(c)
	}
	t.Cleanup(func() { m.Grid()[0].Screen().Close() })
	wantCols, wantRows := screenSize()

	m.Update(AttachMsg{ID: 1, Width: 50, Height: 20, ReadOnly: true})
	m.Update(ClientMsg{ID: 1, Msg: keyMsg("x")})
	if c, r := screenSize(); c != wantCols || r != wantRows {
		t.Fatalf("a read-only client sized the pane %dx%d (was %dx%d)", c, r, wantCols, wantRows)
	}
	m.Update(AttachMsg{ID: 2, Width: 60, Height: 21})
	if c, _ := screenSize(); c != 60 {
		t.Fatalf("a client that may type did not size the pane: %d columns, want 60", c)
	}
	m.Update(DetachMsg{ID: 2})
	if m.active != nil {
		t.Fatalf("with only a read-only client left, it became the sizing one")
	}
}

// drain runs the start commands a StartMsg returned the way the fake
// tests do, one after another, and returns their messages, in order; the
// watch among them returns at the test's end.
func drain(t *testing.T, m *Model, starts tea.Cmd) []tea.Msg {
	t.Cleanup(m.StopWatching)
	return runCmd(starts)
}

// Each view's focus is a pane, not a place: removing another pane leaves
// it where it was, and removing the focused one moves it to the pane
// that takes its place, or the one before when it was the last.
func TestFocusFollowsPaneAcrossRemovals(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 4, 120, 40)
	m.Update(AttachMsg{ID: 1, Width: 120, Height: 40})
	other := m.viewByID(1)
	for _, p := range m.Grid() { // removePane's command would close them
		t.Cleanup(func() { p.Screen().Close() })
	}
	m.lv().setFocus(2) // cpane
	other.setFocus(3)  // dpane
	m.RemoveAt(0, nil) // apane
	if got, want := m.lv().focused().Spec().Name, "cpane"; got != want {
		t.Errorf("after another pane went, view 0 focuses %s, want %s", got, want)
	}
	if got, want := other.focused().Spec().Name, "dpane"; got != want {
		t.Errorf("after another pane went, view 1 focuses %s, want %s", got, want)
	}
	m.RemoveAt(1, nil) // cpane, focused by view 0: dpane takes its place
	if got, want := m.lv().focused().Spec().Name, "dpane"; got != want {
		t.Errorf("after its pane went, view 0 focuses %s, want %s", got, want)
	}
	m.RemoveAt(1, nil) // dpane, the last: bpane before it
	for _, v := range []*view{m.lv(), other} {
		if got, want := v.focused().Spec().Name, "bpane"; got != want {
			t.Errorf("after the last pane went, view %d focuses %s, want %s", v.id, got, want)
		}
	}
}
