package vt

import (
	"bytes"

	"github.com/hinshun/vt10x"
)

// The main screen under the alternate one. tmux does not reflow the
// alternate screen (its program redraws it on SIGWINCH) but does reflow
// the main screen under it, so that leaving vim shows the shell's output
// whole at the new width. vt10x cuts both screens when it resizes, so
// the Screen reflows its own copy of the main screen (altMain, taken on
// entry) with the scrollback, and paints the main screen from that copy
// when the program leaves the alternate screen.

// reflowAltMain rewraps the copy of the main screen and the scrollback
// at cols, the height unchanged, with the saved cursor (where 1049 puts
// the cursor back) following its character.
func (s *Screen) reflowAltMain(cols int) {
	oldCols := s.altMainCols
	if oldCols == 0 || len(s.altMain) < oldCols*s.rows {
		return
	}
	out := &scrollback{max: s.sb.max, styles: s.sb.table()}
	r := newReflower(cols, s.rows, out)
	var buf []Cell
	for i := range s.sb.len() {
		buf = r.passLine(s.sb.line(i), buf)
	}
	row := make([]Cell, oldCols)
	for y := range s.rows {
		src := s.altMain[y*oldCols : (y+1)*oldCols]
		for x, g := range src {
			row[x] = s.cellOf(g)
		}
		fixWide(row)
		cursor := -1
		if y == s.saved.Y {
			cursor = s.saved.X
		}
		s.feedRow(r, row, func(x int) vt10x.Glyph { return src[x] }, cursor)
	}
	r.finish()
	s.sb = *out
	rows := r.rows()
	s.saved.X, s.saved.Y = 0, 0
	if first := r.n - len(rows); r.curAt >= first {
		s.saved.X, s.saved.Y = min(r.curX, cols-1), r.curAt-first
	}
	s.altMain, s.altMainCols = s.glyphRows(rows, cols), cols
	s.altFlowed = true
}

// glyphRows turns rows into vt10x glyphs, cols a row, as vt10x would have
// stored them, pinning the pens and stand-ins they use as it goes (a
// sweep while it interns must not free them).
func (s *Screen) glyphRows(rows []flowRow, cols int) []vt10x.Glyph {
	out := make([]vt10x.Glyph, 0, cols*len(rows))
	blankGlyph := penGlyph(0)
	blankGlyph.Char = ' '
	for _, fr := range rows {
		cells := fr.cells
		if fr.sb != nil {
			cells = make([]Cell, fr.sb.width())
			fr.sb.cells(s.sb.styles, cells)
		}
		start := len(out)
		for i := range cells {
			out = append(out, s.glyphOf(&cells[i]))
		}
		for len(out)-start < cols {
			out = append(out, blankGlyph)
		}
		out = out[:start+cols]
		if fr.wrapped {
			out[start+cols-1].Mode |= vtWrap
		}
	}
	return out
}

// glyphOf is the glyph vt10x stores for c, its pen and stand-in pinned.
func (s *Screen) glyphOf(c *Cell) vt10x.Glyph {
	if c.Flags&FlagPad != 0 {
		g := penGlyph(0)
		g.Char = padRune
		return g
	}
	id := s.internPen(c.style())
	if id != 0 {
		s.altPins = append(s.altPins, id)
	}
	g := penGlyph(id)
	switch r := c.Rune; {
	case c.Flags&FlagPlaceholder != 0:
		g.Char = placeholder
	case c.Text != "":
		g.Char = r
		if stand, ok := s.internCluster([]byte(c.Text)); ok {
			g.Char = stand
			s.altRunes = append(s.altRunes, stand)
		}
	case r == 0:
		g.Char = ' '
	default:
		g.Char = r
	}
	return g
}

// paintAltMain paints the main screen from its reflowed copy when the
// program left the alternate screen (vt10x shows its own, cut, copy);
// 1049 puts the cursor where the saved one went.
func (s *Screen) paintAltMain(raw []byte) {
	cols := s.altMainCols
	if !s.altFlowed || cols != s.cols || len(s.altMain) < cols*s.rows {
		return
	}
	rows := make([]flowRow, s.rows)
	for y := range rows {
		row := make([]Cell, cols)
		src := s.altMain[y*cols : (y+1)*cols]
		for x, g := range src {
			row[x] = s.cellOf(g)
		}
		fixWide(row)
		rows[y] = flowRow{cells: row, wrapped: src[cols-1].Mode&vtWrap != 0}
	}
	s.vtPen = -1 // 1049 restored the saved cursor's pen
	c := s.term.Cursor()
	if bytes.Contains(raw, []byte("1049")) {
		c.X, c.Y = s.saved.X, s.saved.Y
	}
	s.paintFlow(rows, min(c.X, cols-1), min(c.Y, s.rows-1))
}
