package ui

import "github.com/sandmux/sandmux/providers"

// rect is a pane's place on the screen: its title line is row y, its body
// the h-1 rows below.
type rect struct{ x, y, w, h int }

// Smallest useful pane: a title line and three rows of twenty columns.
// Panes that would be smaller go to further pages.
const (
	minPaneW = 20
	minPaneH = 4
)

// layoutPage tiles k panes (the panes of one page) into a width×height
// area in a balanced grid: columns ≈ √k, rows filled evenly, the last row's
// panes widened to fill it. Columns are separated by one blank column.
func layoutPage(k, width, height int) []rect {
	if k <= 0 || width <= 0 || height <= 0 {
		return nil
	}
	cols := 1
	for cols*cols < k {
		cols++
	}
	rows := (k + cols - 1) / cols
	// Prefer more rows than columns when panes would be too narrow.
	for cols > 1 && (width-(cols-1))/cols < minPaneW {
		cols--
		rows = (k + cols - 1) / cols
	}
	// And more columns than rows when panes would be too short.
	for rows > 1 && height/rows < minPaneH && (width-cols)/(cols+1) >= minPaneW {
		cols++
		rows = (k + cols - 1) / cols
	}
	rects := make([]rect, 0, k)
	y := 0
	for r := range rows {
		h := share(height, rows, r)
		n := min(cols, k-len(rects))
		x := 0
		for c := range n {
			w := share(width-(n-1), n, c)
			rects = append(rects, rect{x: x, y: y, w: w, h: h})
			x += w + 1
		}
		y += h
	}
	return rects
}

// share splits total into n near-equal parts and returns part i; earlier
// parts get the remainder.
func share(total, n, i int) int {
	q, r := total/n, total%n
	if i < r {
		return q + 1
	}
	return q
}

// perPage is how many panes fit on one page of a width×height area at the
// minimum pane size (at least one).
func perPage(width, height int) int {
	cols := max(1, (width+1)/(minPaneW+1))
	rows := max(1, height/minPaneH)
	return cols * rows
}

// bodySizeOf is a pane's body size in a rect.
func bodySizeOf(r rect) providers.Size {
	return providers.Size{Cols: uint16(max(1, r.w)), Rows: uint16(max(1, r.h-1))}
}
