package vt

import "github.com/hinshun/vt10x"

// The Screen's side of each sequence the filter let through (filter.go's
// ops): what it does to the cursor model, the pens, the scrollback and
// the alternate screen, and the bytes it leaves for vt10x.

// seq performs one filtered sequence.
func (s *Screen) seq(o op, n int, raw []byte) {
	if o != opStyle && o != opPen && o != opSave {
		s.last.ok = o == opRepeat && s.last.ok
	}
	if s.penSeq(o, n, raw) {
		return
	}
	switch o {
	case opStyle:
	case opSave:
		s.noteSaved()
	case opTabs:
		s.setTab(n)
	case opIndex:
		s.index(raw)
		return
	case opNextLine:
		s.newLine(true, raw)
		return
	case opScrollUp:
		if s.feedsScrollback() {
			s.flush()
			s.capture(min(n, s.rows))
		}
		s.toVT(s.erasePen())
	case opEraseAbove:
		s.eraseAbove(raw)
		return
	case opClearHistory:
		s.sb.clear()
	case opResetRegion:
		s.resetRegion(raw)
		return
	case opRepeat:
		// Bounded: a huge count cannot do more than fill the screen.
		for i := min(n, s.cols*s.rows); i > 0 && s.last.ok; i-- {
			s.place(s.last.r, s.last.w)
		}
	case opSync:
		s.syncChanged(n == 1)
	case opGoto:
		s.cur = cursorModel{known: true, x: n & 0xffff, y: n >> 16}
	default:
		s.cur.known = false
	}
	s.pending = append(s.pending, raw...)
	if len(s.pending) > maxPending {
		s.flush()
	}
}

// newLine performs raw, a line feed (LF, VT, FF) or NEL: a line feed,
// which may scroll, and a carriage return with it when cr is set (NEL,
// or a line feed in LNM).
func (s *Screen) newLine(cr bool, raw []byte) {
	scrolled := s.lineFeed()
	if cr {
		s.cur.x = 0
	}
	s.pending = append(s.pending, raw...)
	if scrolled {
		s.fillScrolled(true)
	}
}

// eraseAbove performs ED 1 in the erase pen; vt10x clears the rows above
// only when the cursor is below row 1, so row 0 is cleared here.
func (s *Screen) eraseAbove(raw []byte) {
	s.loadCursor()
	s.cur.known = false
	s.toVT(s.erasePen())
	s.pending = append(s.pending, raw...)
	if s.cur.y == 1 && (!s.f.st.origin || s.f.top == 0) {
		s.pending = append(s.pending, "\x1b[A\x1b[2K\x1b[B"...)
	}
}

// resetRegion performs DECSTR: raw resets the modes and the pen (SGR 0),
// then the margins reset and the cursor goes back where it was, which
// vt10x's DECSTBM alone would move home.
func (s *Screen) resetRegion(raw []byte) {
	s.loadCursor()
	s.pending = append(s.pending, raw...)
	s.pending = append(s.pending, "\x1b[r\x1b["...)
	s.pending = appendInt(s.pending, s.cur.y+1)
	s.pending = append(s.pending, ';')
	s.pending = appendInt(s.pending, s.cur.x+1)
	s.pending = append(s.pending, 'H')
	s.cur.known = false
	s.vtPen = 0
	s.penChanged()
}

// index performs IND. vt10x's IND, unlike its LF and NEL, blanks a new
// line with its pen (make that the erase pen) and keeps a pending wrap,
// which the Screen, as xterm, forgets (move back to the column).
func (s *Screen) index(raw []byte) {
	s.loadCursor()
	wrap := s.cur.wrap
	if s.lineFeed() {
		s.toVT(s.erasePen())
	}
	s.pending = append(s.pending, raw...)
	if wrap && s.cur.x > 0 {
		s.pending = append(s.pending, "\r\x1b["...)
		s.pending = appendInt(s.pending, s.cur.x)
		s.pending = append(s.pending, 'C')
	}
}

// penSeq performs the sequences that change which pen vt10x must hold,
// and reports whether it did all of o. An erase gets the background-only
// pen before its bytes.
func (s *Screen) penSeq(o op, n int, raw []byte) bool {
	switch o {
	case opPen:
		s.penChanged()
	case opErase:
		s.toVT(s.erasePen())
		s.cur.known = false
		s.pending = append(s.pending, raw...)
	case opRestore:
		// vt10x's pen comes back with the cursor: whatever id it held.
		s.cur.known = false
		s.pending = append(s.pending, raw...)
		s.vtPen = -1
		s.penChanged()
		// So does origin mode, as in xterm: cursor moves follow it.
		s.flush()
		s.f.st.origin = s.term.Cursor().State&vtOrigin != 0
	case opAlt:
		s.altSwitch(n == 1, raw)
	case opReset:
		s.cur.known = false
		s.pending = append(s.pending, raw...)
		s.vtPen, s.printPen, s.erasePenID = 0, 0, -1
		s.unpinScreen()
		s.saved, s.tabs = vt10x.Cursor{}, nil
	default:
		return false
	}
	if len(s.pending) > maxPending {
		s.flush()
	}
	return true
}

// altSwitch enters or leaves the alternate screen. On entry the main
// screen's pen ids are pinned (sweeps cannot see it while hidden); vt10x
// blanks the alternate screen with its pen on the way out, so that pen is
// the default, and 1049 restores the cursor with its pen.
func (s *Screen) altSwitch(enter bool, raw []byte) {
	s.cur.known = false
	if enter {
		s.pinScreen()
		if s.term.Mode()&vt10x.ModeAltScreen != 0 {
			// A redundant 1049 entry: vt10x clears the alternate
			// screen with its pen. Erases take the background.
			s.toVT(s.erasePen())
		}
	} else {
		s.toVT(0)
	}
	s.pending = append(s.pending, raw...)
	if !enter {
		s.flush()
		s.f.st.origin = s.term.Cursor().State&vtOrigin != 0 // 1049 restored the cursor
		s.paintAltMain(raw)
		s.unpinScreen()
		s.vtPen = -1
		s.penChanged()
	}
}
