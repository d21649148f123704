package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/status"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Every layout covers its area exactly once (but for the one-column gaps
// between panes) and respects the minimum pane size.
func TestLayoutCoversArea(t *testing.T) {
	for _, size := range [][2]int{{80, 23}, {200, 49}, {120, 39}, {45, 10}, {200, 10}, {30, 40}, {21, 4}} {
		w, h := size[0], size[1]
		for k := 1; k <= perPage(w, h); k++ {
			rects := layoutPage(k, w, h)
			if len(rects) != k {
				t.Fatalf("%dx%d k=%d: %d rects", w, h, k, len(rects))
			}
			covered := make([]int, w*h)
			for _, r := range rects {
				if r.w < minPaneW || r.h < minPaneH {
					t.Errorf("%dx%d k=%d: pane %+v below the minimum size", w, h, k, r)
				}
				for y := r.y; y < r.y+r.h; y++ {
					for x := r.x; x < r.x+r.w; x++ {
						covered[y*w+x]++
					}
				}
			}
			for y := range h {
				gaps := 0
				for x := range w {
					switch covered[y*w+x] {
					case 0:
						gaps++
					case 1:
					default:
						t.Fatalf("%dx%d k=%d: cell %d,%d covered twice", w, h, k, x, y)
					}
				}
				if gaps > w/(minPaneW+1) {
					t.Errorf("%dx%d k=%d: row %d has %d uncovered cells", w, h, k, y, gaps)
				}
			}
		}
	}
}

func TestLayoutShapes(t *testing.T) {
	cases := []struct {
		k, w, h    int
		cols, rows int
	}{
		{1, 80, 23, 1, 1}, {2, 80, 23, 2, 1}, {3, 80, 23, 2, 2}, {4, 80, 23, 2, 2},
		{9, 200, 49, 3, 3}, {16, 200, 49, 4, 4}, {5, 200, 49, 3, 2},
	}
	for _, c := range cases {
		rects := layoutPage(c.k, c.w, c.h)
		cols, rows := 0, map[int]bool{}
		for _, r := range rects {
			if r.y == 0 {
				cols++
			}
			rows[r.y] = true
		}
		if cols != c.cols || len(rows) != c.rows {
			t.Errorf("k=%d in %dx%d: %d cols × %d rows, want %d × %d", c.k, c.w, c.h, cols, len(rows), c.cols, c.rows)
		}
	}
}

// Growing the terminal while a later page is shown keeps a valid page.
func TestResizeClampsPage(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 5, 45, 9)
	if n := m.lv().pageSize(); n >= 5 {
		t.Fatalf("test setup: %d panes fit on a page", n)
	}
	m.lv().setFocus(4)
	send(m, tea.WindowSizeMsg{Width: 200, Height: 60})
	if idx, _ := m.lv().pageRects(); len(idx) != 5 || m.lv().page != 0 {
		t.Errorf("after growing: page %d shows %v, want all five", m.lv().page, idx)
	}
}

// A pane's output while its page was not shown is drawn when it is.
func TestOffPagePaneDrawnWhenShown(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 8, 45, 9)
	last := m.Grid()[len(m.Grid())-1]
	last.Screen().Write("\r\nlate output")
	m.Update(frameMsg{})
	m.lv().setFocus(len(m.Grid()) - 1)
	if !strings.Contains(string(bytes.Join(m.lv().pv(last).rows, nil)), "late output") {
		t.Errorf("the page's pane does not show its output: %q", bytes.Join(m.lv().pv(last).rows, nil))
	}
}

// A resize redraws every pane but is not output: a quiet pane stays idle.
func TestResizeIsNotOutput(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	quietOnStart(m, &now) // the panes printed their prompts as they started
	if st := m.Grid()[1].State(); st.State != status.Idle {
		t.Fatalf("test setup: the quiet pane is %v", st)
	}
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(frameMsg{})
	now = now.Add(time.Second)
	turn(m)
	if st := m.Grid()[1].State(); st.State != status.Idle {
		t.Errorf("a resize made a quiet pane %v", st)
	}
}

// With every pane closed, every line still spans the width (stale text
// cannot show through).
func TestNoPanesLineIsFullWidth(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 1, 80, 24)
	press(m, "ctrl+b")
	for _, msg := range runCmd(pressX(m)) {
		_, after := m.Update(msg)
		runCmd(after)
	}
	lines, _ := m.lv().compose()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 80 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
}
