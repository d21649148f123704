package vt

import "unicode/utf8"

// Growing a pane. vt10x adds the new rows below the old ones, so the old
// top stays and empty rows open below; tmux instead pulls lines back from
// the scrollback so the bottom stays put. pullBack does that: it scrolls
// vt10x's screen down over the new (blank) rows and repaints the freed
// top rows from the newest scrollback lines, which leave the scrollback.
//
// Content is not reflowed on a width change (tmux reflows wrapped lines):
// vt10x keeps no continuation state beyond the auto-wrap mark of a row's
// last cell, and the programs that own the screen redraw on SIGWINCH
// anyway. A line pulled back is cut at the new width, and its auto-wrap
// mark is not restored (vt10x can only set it by wrapping).

// pullBack pulls up to grown lines back from the scrollback after the
// main screen grew by grown rows.
func (s *Screen) pullBack(grown int) {
	k := min(grown, s.sb.len())
	if k <= 0 || s.f.st.modes.AltScreen {
		return
	}
	s.flush()
	c := s.term.Cursor()
	p := s.pending
	if s.f.st.gfx {
		p = append(p, "\x1b(B"...) // paint letters as letters
	}
	p = append(p, "\x1b["...)
	p = appendInt(p, k)
	p = append(p, 'T')
	s.pending = p
	first := s.sb.len() - k
	for i := 0; i < k; i++ {
		s.paintLine(i, s.sb.line(first+i))
	}
	s.sb.dropNewest(k)
	p = s.pending
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

// paintLine draws scrollback line l on screen row y (blank, in the
// default colours) with vt10x pens and stand-ins, as the child drew it.
func (s *Screen) paintLine(y int, l *sbLine) {
	if cap(s.rowBuf) < s.cols {
		s.rowBuf = make([]Cell, s.cols)
	}
	row := s.rowBuf[:s.cols]
	l.cells(row)
	end := len(row)
	for end > 0 && blank(&row[end-1]) {
		end--
	}
	s.pending = append(s.pending, "\x1b["...)
	s.pending = appendInt(s.pending, y+1)
	s.pending = append(s.pending, ";1H"...)
	for x := 0; x < end; x++ {
		c := &row[x]
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
		s.pending = utf8.AppendRune(s.pending, r)
		if c.Flags&FlagWide != 0 {
			s.pending = utf8.AppendRune(s.pending, placeholder)
		}
	}
}
