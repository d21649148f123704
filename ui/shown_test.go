package ui

import "testing"

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
