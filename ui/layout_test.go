package ui

import "testing"

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
