package vt

import (
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Resizing a pane (resizeTo) and growing it. vt10x adds the new rows below the old ones, so the old
// top stays and empty rows open below; tmux instead pulls lines back from
// the scrollback so the bottom stays put. pullBack does that: it scrolls
// vt10x's screen down over the new (blank) rows and repaints the freed
// top rows from the newest scrollback lines, which leave the scrollback.
//
// A width change of the main screen reflows it with the scrollback
// (reflow.go): reflowPlan works out the new rows from vt10x's, and
// paintFlow paints them once vt10x has the new size. Rows that wrapped
// are painted on without a cursor move, so vt10x wraps them itself and
// sets the auto-wrap mark of their last cell, the only continuation
// state it keeps, which the next reflow and the scrollback read.

// resizeTo resizes vt10x and the Screen's models of it; with reflow (a
// width change of the main screen) it rewraps the content.
func (s *Screen) resizeTo(cols, rows int, reflow bool) {
	if cols == s.cols && rows == s.rows {
		return
	}
	s.flush()
	var flow []flowRow
	var fx, fy int
	c := s.term.Cursor()
	alt := s.f.st.modes.AltScreen
	switch {
	case reflow && alt:
		s.reflowAltMain(cols)
		reflow = false // the alternate screen itself is cut
	case reflow:
		flow, fx, fy = s.reflowPlan(cols)
	case c.Y-rows+1 > 0 && !alt:
		s.capture(c.Y - rows + 1)
	}
	oldCols, oldRows := s.cols, s.rows
	if s.f.st.modes.AltScreen {
		s.resizeAltMain(c.Y-rows+1, cols, rows)
	}
	s.resizeTabs(oldCols, cols)
	// vt10x fills what a resize adds with its pen: make it the default.
	s.toVT(0)
	s.flush()
	s.term.Resize(cols, rows)
	s.cols, s.rows = cols, rows
	s.resizeRows()
	s.f.resize(cols, rows)
	s.cur.known, s.last.ok = false, false
	if cols > oldCols {
		s.extendTabs(oldCols)
	}
	switch {
	case reflow:
		s.paintFlow(flow, fx, fy)
	case rows > oldRows:
		s.pullBack(rows - oldRows)
	}
}

// pullBack pulls up to grown lines back from the scrollback after the
// main screen grew by grown rows.
func (s *Screen) pullBack(grown int) {
	k := min(grown, s.sb.len())
	if k <= 0 || s.f.st.modes.AltScreen {
		return
	}
	s.flush()
	c := s.term.Cursor()
	chain := s.topChain(k)
	p := s.pending
	if s.f.st.gfx {
		p = append(p, "\x1b(B"...) // paint letters as letters
	}
	if !s.f.st.autowrap {
		p = append(p, "\x1b[?7h"...) // lines that wrapped are painted wrapping
	}
	p = append(p, "\x1b["...)
	p = appendInt(p, k)
	p = append(p, 'T')
	s.pending = p
	first := s.sb.len() - k
	cont := false
	for i := 0; i < k; i++ {
		l := s.sb.line(first + i)
		if !cont {
			s.cup(0, i)
		}
		cont = s.paintPulled(l)
	}
	for i := 0; cont && i < len(chain); i++ {
		// The newest line went on in the old top row: painted again
		// after it, that row makes vt10x wrap and mark the line, and
		// so on down the rows that wrapped (painting a row's last cell
		// again forgets its mark).
		row := chain[i]
		if i == len(chain)-1 {
			for len(row) > 0 && plainBlank(&row[len(row)-1]) {
				row = row[:len(row)-1]
			}
		}
		s.paintCells(row)
	}
	s.sb.dropNewest(k)
	p = s.pending
	if !s.f.st.autowrap {
		p = append(p, "\x1b[?7l"...)
	}
	if s.f.st.gfx {
		p = append(p, "\x1b(0"...)
	}
	p = append(p, "\x1b["...)
	p = appendInt(p, c.Y+k+1)
	p = append(p, ';')
	p = appendInt(p, c.X+1)
	s.pending = append(p, 'H')
	s.flush()
	s.cur.known, s.last.ok = false, false
}

// topChain reads the top rows of the screen that wrap, and the row they
// end on, as far as they stay on a screen scrolled down by k.
func (s *Screen) topChain(k int) [][]Cell {
	var chain [][]Cell
	for y := 0; y+k < s.rows; y++ {
		row := make([]Cell, s.cols)
		s.readRowInto(y, row)
		chain = append(chain, row)
		if s.term.Cell(s.cols-1, y).Mode&vtWrap == 0 {
			break
		}
	}
	return chain
}

// paintPulled paints scrollback line l from the cursor, at most the
// screen's width, and reports whether it wrapped: then it is painted to
// the last column, so that the next character wraps.
func (s *Screen) paintPulled(l *sbLine) bool {
	cells := make([]Cell, l.width())
	l.cells(s.sb.styles, cells)
	if len(cells) > s.cols {
		cells = cells[:s.cols]
		if c := &cells[s.cols-1]; c.Flags&FlagWide != 0 {
			*c = Cell{Rune: ' '} // a wide character cut in half
		}
	}
	w := s.paintCells(cells)
	if !l.wrapped {
		return false
	}
	s.toVT(0)
	for ; w < s.cols; w++ {
		s.pending = append(s.pending, ' ')
	}
	return true
}

// paintCells prints cells at the cursor with vt10x pens and stand-ins,
// as the child drew them, and returns how many columns they took.
func (s *Screen) paintCells(cells []Cell) int {
	w := 0
	for x := range cells {
		c := &cells[x]
		if c.Flags&FlagPlaceholder != 0 {
			continue // drawn with its wide character
		}
		s.toVT(s.internPen(c.style()))
		r := c.Rune
		if c.Text != "" {
			stand, ok := s.internCluster([]byte(c.Text))
			if !ok {
				stand = c.Rune
			}
			r = stand
		} else if isStandIn(r) {
			if stand, ok := s.internCluster(utf8.AppendRune(s.clBuf[:0], r)); ok {
				r = stand
			}
		}
		if r == 0 {
			r = ' '
		}
		if c.Flags&FlagPad != 0 {
			r = padRune
		}
		s.pending = utf8.AppendRune(s.pending, r)
		w++
		if c.Flags&FlagWide != 0 {
			s.pending = utf8.AppendRune(s.pending, placeholder)
			w++
		}
	}
	return w
}

// reflowPlan rewraps the scrollback and the main screen at cols (the
// height stays). It replaces the scrollback and returns the rows the
// screen shows, with the cursor's place among them.
func (s *Screen) reflowPlan(cols int) (rows []flowRow, cx, cy int) {
	s.loadCursor()
	x, y := s.cur.x, s.cur.y
	if s.cur.wrap {
		x = s.cols
	}
	out := &scrollback{max: s.sb.max, styles: s.sb.table()}
	r := newReflower(cols, s.rows, out)
	var buf []Cell
	for i := range s.sb.len() {
		buf = r.passLine(s.sb.line(i), buf)
	}
	row := make([]Cell, s.cols)
	for yy := range s.rows {
		s.readRowInto(yy, row)
		cursor := -1
		if yy == y {
			cursor = x
		}
		s.feedRow(r, row, func(x int) vt10x.Glyph { return s.term.Cell(x, yy) }, cursor)
	}
	r.finish()
	s.sb = *out
	rows = r.rows()
	if first := r.n - len(rows); r.curAt >= first {
		cx, cy = r.curX, r.curAt-first
	}
	return rows, cx, cy
}

// feedRow feeds a row of the main screen, read from raw, to r: a row
// that wrapped whole, another up to its last cell that is text (a blank
// an erase cleared is not), and at least to the cursor's column cx when
// the cursor is on it (cx >= 0).
func (s *Screen) feedRow(r *reflower, row []Cell, raw func(x int) vt10x.Glyph, cx int) {
	wrapped := raw(len(row)-1).Mode&vtWrap != 0
	end := len(row)
	for !wrapped && end > 0 && row[end-1].Rune == ' ' && row[end-1].Flags == 0 &&
		s.clearedPen(glyphPen(raw(end-1))) {
		end--
	}
	if cx >= 0 {
		end = max(end, min(cx, len(row)))
	}
	r.feed(row[:end], wrapped, cx)
}

// paintFlow paints rows (from reflowPlan) on the screen, just resized
// and blank, and puts the cursor at (cx, cy); cx may be the width, a
// pending wrap after the row's last character.
func (s *Screen) paintFlow(rows []flowRow, cx, cy int) {
	p := s.pending
	if !s.f.st.autowrap {
		p = append(p, "\x1b[?7h"...) // rows that wrapped are painted wrapping
	}
	if s.f.st.gfx {
		p = append(p, "\x1b(B"...) // paint letters as letters
	}
	s.pending = p
	s.toVT(0) // the clear takes vt10x's pen
	s.pending = append(s.pending, "\x1b[H\x1b[2J"...)
	cont := false // the row before wrapped: go on without moving
	for y := range rows {
		if l := rows[y].sb; l != nil {
			rows[y].cells = make([]Cell, l.width())
			l.cells(s.sb.styles, rows[y].cells)
		}
		cells := rows[y].cells
		wraps := rows[y].wrapped && y < len(rows)-1
		if !wraps {
			for len(cells) > 0 && plainBlank(&cells[len(cells)-1]) {
				cells = cells[:len(cells)-1]
			}
		}
		if !cont && len(cells) > 0 {
			s.cup(0, y)
		}
		w := s.paintCells(cells)
		if wraps {
			s.toVT(0)
			for ; w < s.cols; w++ {
				// Short only by a wide character that did not fit: the
				// pad makes the next one wrap, as when it was printed.
				s.pending = utf8.AppendRune(s.pending, padRune)
			}
		}
		cont = wraps
	}
	s.placeCursor(rows, cx, cy)
	if s.f.st.gfx {
		s.pending = append(s.pending, "\x1b(0"...)
	}
	if !s.f.st.autowrap {
		s.pending = append(s.pending, "\x1b[?7l"...)
	}
	s.flush()
	s.cur.known, s.last.ok = false, false
}

// placeCursor moves vt10x's cursor to (cx, cy) after paintFlow; at
// cx == cols it prints the row's last character again, which leaves the
// wrap pending.
func (s *Screen) placeCursor(rows []flowRow, cx, cy int) {
	if cx < s.cols || cy >= len(rows) {
		s.cup(min(cx, s.cols-1), cy)
		return
	}
	cells := rows[cy].cells
	x := len(cells) - 1
	if x < 0 {
		s.cup(s.cols-1, cy)
		return
	}
	if cells[x].Flags&FlagPlaceholder != 0 && x > 0 {
		x--
	}
	w := 1
	if cells[x].Flags&FlagWide != 0 {
		w = 2
	}
	s.cup(s.cols-w, cy)
	s.paintCells(cells[x:])
}

// cup appends a cursor move to 0-based (x, y).
func (s *Screen) cup(x, y int) {
	p := append(s.pending, "\x1b["...)
	p = appendInt(p, y+1)
	p = append(p, ';')
	p = appendInt(p, x+1)
	s.pending = append(p, 'H')
}
