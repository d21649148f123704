package ui

import (
	"slices"
	"testing"
)

// Only the panes of the page shown (or the zoomed one) count as shown.
func TestPanesMarkedShown(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 20, 80, 24) // 3×5 a page
	shown := func() (n int, first int) {
		first = -1
		for i, p := range m.Grid() {
			if p.Shown() {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		return n, first
	}
	if n, first := shown(); n != m.lv().pageSize() || first != 0 {
		t.Fatalf("%d shown from %d, want the first page of %d", n, first, m.lv().pageSize())
	}
	press(m, "ctrl+b")
	press(m, "n")
	if n, first := shown(); n != 20-m.lv().pageSize() || first != m.lv().pageSize() {
		t.Errorf("after next page: %d shown from %d", n, first)
	}
	press(m, "ctrl+b")
	press(m, "z")
	if n, first := shown(); n != 1 || first != m.lv().focusIndex() {
		t.Errorf("zoomed: %d shown from %d, want the focused pane alone", n, first)
	}
}

// The pane a client focuses is marked focused, and only while it is on
// that client's screen: its output is paced for the eye that reads it,
// the rest of the page's for a glance.
func TestFocusedPaneMarked(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 20, 80, 24) // 3×5 a page
	focused := func() []int {
		var at []int
		for i, p := range m.Grid() {
			if p.Focused() {
				if !p.Shown() {
					t.Errorf("pane %d is marked focused but not shown", i)
				}
				at = append(at, i)
			}
		}
		return at
	}
	if at := focused(); !slices.Equal(at, []int{m.lv().focusIndex()}) {
		t.Fatalf("focused %v, want the view's focus %d alone", at, m.lv().focusIndex())
	}
	press(m, "ctrl+b")
	press(m, "o")
	if at := focused(); len(at) != 1 || at[0] != 1 || m.lv().focusIndex() != 1 {
		t.Errorf("after focus-next: focused %v, view's focus %d, want pane 1", at, m.lv().focusIndex())
	}
}
