package vt

import "unicode/utf8"

// cursorModel mirrors vt10x's cursor between flushes so that text can be
// placed (wide runes, scroll points) without asking vt10x after every
// character. When known is false the next print reloads it from vt10x.
type cursorModel struct {
	known bool
	x, y  int
	wrap  bool // wrap pending: the next character goes to the next line
}

// lastPrint is the last character printed, for REP and for composing a
// combining mark that follows it.
type lastPrint struct {
	ok       bool
	r        rune // a stand-in for a cluster (cluster.go)
	x        int  // its column (the cursor's row is still its row)
	w        int
	pen      uint32
	zwj      bool // the cluster ends with a ZWJ: a pictograph joins it
	regional bool // a lone regional indicator: a second one makes a flag
}

// maxPending bounds the bytes held before a flush to vt10x.
const maxPending = 32 << 10

func (s *Screen) flush() {
	if len(s.pending) > 0 {
		// vt10x reports a short count only for a split rune, which the
		// filter never produces; it has no other error.
		_, _ = s.term.Write(s.pending)
		s.flushed()
		s.pending = s.pending[:0]
	}
}

func (s *Screen) loadCursor() {
	if s.cur.known {
		return
	}
	s.flush()
	c := s.term.Cursor()
	// State bit 2 is vt10x's unexported cursorWrapNext.
	s.cur = cursorModel{known: true, x: c.X, y: c.Y, wrap: c.State&2 != 0}
}

// feedsScrollback reports whether lines leaving the top go to the
// scrollback: on the main screen when the scroll region starts at the top
// line, as in xterm and tmux (a region above a status line still feeds the
// scrollback; one below a header does not).
func (s *Screen) feedsScrollback() bool {
	return !s.f.st.modes.AltScreen && s.f.top == 0
}

// lineFeed moves the model down a line, capturing the top row first when
// this line feed scrolls it off the main screen. It reports whether the
// line feed scrolls (the caller fills the new line, see fillScrolled).
func (s *Screen) lineFeed() bool {
	s.loadCursor()
	scrolls := s.cur.y == s.f.bot
	if scrolls {
		if s.feedsScrollback() {
			s.capture(1)
		}
	} else if s.cur.y < s.rows-1 {
		s.cur.y++
	}
	s.cur.wrap = false
	return scrolls
}

// text places printable text.
func (s *Screen) text(t string) {
	for i := 0; i < len(t); {
		if c := t[i]; c < 0x80 {
			j := i + 1
			for j < len(t) && t[j] < 0x80 {
				j++
			}
			s.ascii(t[i:j])
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(t[i:])
		s.printRune(r)
		i += n
	}
	if len(s.pending) > maxPending {
		s.flush()
	}
}

// ascii places narrow characters, in bulk up to the right margin.
func (s *Screen) ascii(t string) {
	for len(t) > 0 {
		s.loadCursor()
		if s.cur.wrap || s.f.st.modes.Insert {
			s.put(rune(t[0]), 1)
			t = t[1:]
			continue
		}
		n := min(len(t), s.cols-s.cur.x)
		start := len(s.pending)
		s.toVT(s.printPen)
		s.pending = append(s.pending, t[:n]...)
		s.known(start, s.cur.y) // no wrap: the text stays on the cursor's row
		s.last = lastPrint{ok: true, r: rune(t[n-1]), x: s.cur.x + n - 1, w: 1, pen: s.printPen}
		s.cur.x += n
		if s.cur.x >= s.cols {
			s.cur.x, s.cur.wrap = s.cols-1, true
		}
		t = t[n:]
	}
}

// printRune places one non-ASCII character according to its width, or
// adds it to the cluster before it (cluster.go).
func (s *Screen) printRune(r rune) {
	if r == placeholder || r == padRune {
		r = utf8.RuneError
	}
	w := runeWidth(r)
	if w == 0 && r < 0xa0 {
		return // a C1 control: nothing to show
	}
	if s.joins(r, w) {
		s.extend(r)
		return
	}
	if w == 0 {
		return // a mark with nothing to join
	}
	c := r
	if isStandIn(r) {
		// A real code point of the stand-in planes goes through the table.
		var ok bool
		if c, ok = s.internCluster(utf8.AppendRune(s.clBuf[:0], r)); !ok {
			c = utf8.RuneError
		}
	}
	s.place(c, w)
	s.last.regional = isRegional(r)
}

// place prints r (a rune or stand-in) of width w at the cursor.
func (s *Screen) place(r rune, w int) {
	if w == 1 {
		s.put(r, 1)
		return
	}
	s.loadCursor()
	if s.cur.x == s.cols-1 && !s.cur.wrap && s.f.st.autowrap && s.cols > 1 {
		// xterm wraps a wide rune that would start in the last
		// column; vt10x would split it. Fill the column first, with
		// a blank that is no text (tmux leaves the cell alone).
		pen := s.printPen
		s.printPen = 0
		s.put(padRune, 1)
		s.printPen = pen
	}
	s.put(r, 2)
}

// put places r (w columns) at the cursor, as vt10x will: a pending wrap
// moves to the next line first (a scroll point on the bottom margin).
func (s *Screen) put(r rune, w int) {
	s.loadCursor()
	scrolled := false
	if s.cur.wrap && s.f.st.autowrap {
		scrolled = s.lineFeed()
		s.cur.x = 0
	}
	s.toVT(s.printPen)
	if s.f.st.modes.Insert && !s.cur.wrap {
		s.pending = append(s.pending, "\x1b[@"...)
		if w == 2 {
			s.pending = append(s.pending, "\x1b[@"...)
		}
	}
	s.last = lastPrint{ok: true, r: r, x: s.cur.x, w: w, pen: s.printPen}
	s.pending = utf8.AppendRune(s.pending, r)
	s.advance()
	if w == 2 {
		s.pending = utf8.AppendRune(s.pending, placeholder)
		s.advance()
	}
	if scrolled && !s.cur.wrap {
		// vt10x blanked the line it wrapped onto in default colours.
		s.fillScrolled(false)
	}
}

// advance is vt10x's cursor step after storing a character.
func (s *Screen) advance() {
	if s.cur.x+1 < s.cols {
		s.cur.x++
	} else {
		s.cur.wrap = true
	}
}

// control passes BS, HT, LF, VT, FF or CR, keeping the model.
func (s *Screen) control(b byte) {
	s.last.ok = false
	switch b {
	case '\n', '\v', '\f':
		s.newLine(s.f.st.lnm, []byte{b})
		return
	case '\r':
		s.cur.x, s.cur.wrap = 0, false
	case '\b':
		if s.cur.x > 0 {
			s.cur.x--
		}
		s.cur.wrap = false
	default: // HT
		s.loadCursor()
		if s.cur.wrap {
			// With a wrap pending the cursor stays put and the wrap
			// stays pending (tmux; vt10x would cancel the wrap).
			return
		}
		s.cur.known = false // the stops live in vt10x
	}
	s.pending = append(s.pending, b)
}

// reply queues an answer after everything before it was parsed, so that it
// follows vt10x's own answers to earlier queries.
func (s *Screen) reply(b []byte) {
	s.flush()
	// replyQueue.Write never fails.
	_, _ = s.replies.Write(b)
}
