package ui

import (
	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session/vt"
)

// What a view keeps of each pane: its frame of the screen and the rows
// rendered from it.

// takeFrame copies pane p's screen (or the scrolled-back view) into the
// view's frame of it and renders its rows.
func (v *view) takeFrame(p *mux.Pane) {
	s := v.panes[p.Key()]
	if s == nil || p.Screen() == nil {
		return
	}
	if s.scroll > 0 {
		p.Screen().SnapshotAt(&s.frame, s.scroll)
		s.scroll = s.frame.Scrollback - s.frame.First // clamped by the screen
	} else {
		p.Screen().Snapshot(&s.frame)
	}
	if s.search != nil || s.sel != nil {
		s.highlightSearch()
		s.highlightSelection()
		s.frame.Invalidate() // the highlight edited its cells: take them all anew
	}
	v.renderGen++
	s.renderBody(v.renderGen)
}

// renderBody renders the rows of the frame that changed since it was
// rendered last; the others keep their bytes. gen is the view's render
// generation, which only grows.
func (s *paneView) renderBody(gen uint64) {
	s.gen = gen
	all := len(s.rows) != s.frame.Rows || s.search != nil || s.sel != nil
	for len(s.rows) < s.frame.Rows {
		s.rows = append(s.rows, nil)
		s.rowGens = append(s.rowGens, 0)
	}
	s.rows, s.rowGens = s.rows[:s.frame.Rows], s.rowGens[:s.frame.Rows]
	for y := range s.frame.Rows {
		if all || s.frame.RowChanged(y) {
			s.rows[y] = vt.RenderRow(s.rows[y][:0], &s.frame, y)
			s.rowGens[y] = s.gen
		}
	}
}

// rowRendered is the render generation that last changed row y; a row
// past the end changes with every generation (the body is blank there).
func (s *paneView) rowRendered(y int) uint64 {
	if y < 0 || y >= len(s.rowGens) {
		return s.gen
	}
	return s.rowGens[y]
}

// row returns rendered row y of the body, or nil past the end.
func (s *paneView) row(y int) []byte {
	if y < 0 || y >= len(s.rows) {
		return nil
	}
	return s.rows[y]
}
