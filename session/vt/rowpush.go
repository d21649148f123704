package vt

// How the screen's rows reach the scrollback as vt10x scrolls them away
// (capture, pushLine, and the plain fast path), how a stored line becomes
// cells again, and how vt10x's glyphs become cells.

import (
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// blank reports whether a trailing cell shows nothing: a space with no
// background and no attribute that draws on a space.
func blank(c *Cell) bool {
	return (c.Rune == ' ' || c.Rune == 0) && c.Flags == 0 && c.BG.IsDefault() &&
		c.Attrs&(AttrReverse|AttrUnderline|AttrStrike|AttrOverline) == 0
}

// sameStyle reports whether two cells have the same style (cheaper than
// comparing their style()s, which this runs per scrolled cell).
func sameStyle(a, b *Cell) bool {
	return a.FG == b.FG && a.BG == b.BG && a.Attrs == b.Attrs && a.UL == b.UL &&
		a.Under == b.Under && a.Link == b.Link
}

// clearedPen reports whether a space drawn with pen id is no text: it
// shows nothing, or an erase put it there.
func (s *Screen) clearedPen(id uint32) bool {
	st := s.pens.style(id)
	return st.cleared || blankStyle(st)
}

// blankStyle reports whether a space in st shows nothing.
func blankStyle(st style) bool {
	c := Cell{Rune: ' '}
	c.setStyle(st)
	return blank(&c)
}

// cells writes line l, its styles in t, into dst (len = frame width),
// padding with blanks.
func (l *sbLine) cells(t *styleTable, dst []Cell) {
	text := l.text()
	x := 0
	for it := l.runs(); it.next(); {
		st := t.style(it.id)
		for k := int32(0); k < it.n && x < len(dst); k++ {
			ch, size := utf8.DecodeRuneInString(text)
			text = text[size:]
			dst[x] = Cell{Rune: ch}
			dst[x].setStyle(st)
			x++
		}
	}
	for ; x < len(dst); x++ {
		dst[x] = Cell{Rune: ' '}
	}
	for _, c := range l.clusterList() {
		if int(c.x) < len(dst) {
			dst[c.x].Text = c.text
		}
	}
	// The line may be wider than dst (the screen shrank since) and cut a
	// wide rune in half: fixWide turns the lone half into a blank.
	fixWide(dst)
}

// capture copies the top n rows of the screen into the scrollback, just
// before vt10x scrolls them away. Rows a bulk layout already put there are
// skipped (see bulk.go).
func (s *Screen) capture(n int) {
	s.flush()
	s.sb.compactStyles()
	for y := 0; y < n && y < s.rows; y++ {
		if s.suppress > 0 {
			s.suppress--
			continue
		}
		s.pushLine(s.cols, s.termRow(y))
	}
}

// termRow reads screen row y of vt10x whole, into a buffer of the
// screen's that the next call reuses.
func (s *Screen) termRow(y int) []vt10x.Glyph {
	s.lineBuf = s.term.Row(y, s.lineBuf)
	return s.lineBuf
}

// pushLine appends a screen row, given as vt10x holds it, to the scrollback;
// the cells from used on are known blank (default spaces). It runs once
// per scrolled line, so it converts only the cells before the trailing
// blanks.
func (s *Screen) pushLine(used int, glyphs []vt10x.Glyph) {
	if s.sb.max == 0 {
		return
	}
	wrapped := used == s.cols && glyphs[s.cols-1].Mode&vtWrap != 0
	end := used
	for end > 0 {
		g := glyphs[end-1]
		if g.Char != ' ' {
			break
		}
		if id := glyphPen(g); id != 0 && !s.clearedPen(id) {
			break
		}
		end--
	}
	if !s.pushPlain(glyphs[:end], wrapped) {
		s.pushCells(glyphs[:end], wrapped)
	}
}

// pushCells is pushLine for any row: each glyph made a Cell, then the
// line made from the cells.
func (s *Screen) pushCells(glyphs []vt10x.Glyph, wrapped bool) {
	if cap(s.rowBuf) < s.cols {
		s.rowBuf = make([]Cell, s.cols)
	}
	row := s.rowBuf[:len(glyphs)]
	for x := range row {
		row[x] = s.cellOf(glyphs[x])
	}
	fixWide(row)
	s.sb.push(row, wrapped)
	if wrapped {
		s.sb.line(s.sb.len() - 1).span = int32(s.cols) // its blanks too
	}
}

// pushPlain is pushLine for a row of single code points none of them
// wide, as most scrolled lines are: it writes the scrollback's line from
// the glyphs, a run per pen, without making a Cell of each first (that
// took 60 % of the parse of a coloured log). It reports false, having
// written nothing, for any other row.
func (s *Screen) pushPlain(glyphs []vt10x.Glyph, wrapped bool) bool {
	for _, g := range glyphs {
		if r := g.Char; r >= 0x7f && (isStandIn(r) || r == placeholder || r == padRune || runeWidth(r) == 2) {
			return false
		}
	}
	end := len(glyphs)
	for end > 0 { // the blanks scrollback.push leaves out
		if c := s.cellOf(glyphs[end-1]); !blank(&c) {
			break
		}
		end--
	}
	l := s.sb.slot()
	l.span = 0
	if wrapped {
		l.span = int32(s.cols)
	}
	text, runs := s.textBuf[:0], s.sb.build.runs[:0]
	pen := ^uint32(0)
	for _, g := range glyphs[:end] {
		switch r := g.Char; {
		case r == 0:
			text = append(text, ' ')
		case r < utf8.RuneSelf:
			text = append(text, byte(r))
		default:
			text = utf8.AppendRune(text, r)
		}
		if id := glyphPen(g); id != pen {
			pen = id
			st := s.sb.table().internPen(id, s.cellStyle(id))
			if n := len(runs); n == 0 || runs[n-1].id != st {
				runs = append(runs, sbRun{n: 1, id: st})
				continue
			}
		}
		runs[len(runs)-1].n++
	}
	s.textBuf, s.sb.build.runs = text, runs
	l.pack(text, runs, nil, s.sb.lineArena())
	l.wrapped, l.special = wrapped, false
	return true
}

// readRowRaw converts screen row y into row, keeping each cell's raw
// glyph in raw too: one read of vt10x for the row.
func (s *Screen) readRowRaw(y int, row []Cell, raw []vt10x.Glyph) {
	copy(raw, s.termRow(y))
	s.cellsOf(raw, row)
}

// readRowInto converts the first len(row) cells of screen row y.
func (s *Screen) readRowInto(y int, row []Cell) {
	s.cellsOf(s.termRow(y), row)
}

// cellsOf converts the first len(row) of glyphs, a row of the screen.
func (s *Screen) cellsOf(glyphs []vt10x.Glyph, row []Cell) {
	// ASCII takes its pen's cell, made once for a run of that pen; the
	// rest the whole conversion. fixWide only changes cells past ASCII.
	pen, tmpl, past := ^uint32(0), Cell{}, false
	for x := range row {
		g := glyphs[x]
		if g.Char <= 0 || g.Char >= 0x7f {
			past = past || g.Char >= 0x7f
			row[x] = s.cellOf(g)
			continue
		}
		if id := glyphPen(g); id != pen {
			pen, tmpl = id, Cell{}
			tmpl.setStyle(s.cellStyle(id))
		}
		tmpl.Rune = g.Char
		row[x] = tmpl
	}
	if past {
		fixWide(row)
	}
}
