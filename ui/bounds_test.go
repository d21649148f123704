package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/termsize"
)

// The UI takes no size past termsize's bound, whatever it is handed: a
// view's size, a pane's screen and the start layout stay within it.
func TestContract_A10_UISizesClamped(t *testing.T) {
	b := newFakeBackend()
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, b, []mux.PaneSpec{{Name: "a", Provider: "local"}})
	m.SetClock(fixedNow)
	_, starts := m.Update(StartMsg{Width: 9999, Height: 9999})
	if m.layoutW != termsize.MaxWidth || m.layoutH != termsize.MaxHeight {
		t.Errorf("the start layout is %dx%d, want the bound %dx%d", m.layoutW, m.layoutH, termsize.MaxWidth, termsize.MaxHeight)
	}
	for _, c := range drain(t, m, starts) {
		m.Update(c)
	}
	t.Cleanup(func() { m.Grid()[0].Screen().Close() })
	m.Update(AttachMsg{ID: 1, Width: 65535, Height: 65535})
	check := func(when string) {
		t.Helper()
		v := m.viewByID(1)
		if v.width > termsize.MaxWidth || v.height > termsize.MaxHeight {
			t.Errorf("%s: the view is %dx%d, past the bound", when, v.width, v.height)
		}
		if c, r := m.Grid()[0].Screen().Size(); c > termsize.MaxWidth || r > termsize.MaxHeight {
			t.Errorf("%s: the pane's screen is %dx%d, past the bound", when, c, r)
		}
	}
	check("attached at 65535x65535")
	m.Update(ClientMsg{ID: 1, Msg: tea.WindowSizeMsg{Width: 1 << 30, Height: 1 << 30}})
	check("resized to 2^30 a side")
}
