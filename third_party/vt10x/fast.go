package vt10x

import "unicode/utf8"

// The fast path of Write (a sandmux change). Between sequences the
// parser's state is parse, and what a byte does there needs no state
// machine: a character other than ESC goes to parse itself, and a CSI
// sequence of plain parameters (digits and semicolons, no private marker
// or intermediate) can be decoded in one pass and dispatched, without the
// per-byte state changes and the string, Split and Atoi the slow path
// pays per sequence. The effects are the slow path's own code (parse,
// handleCSI) with the same arguments, so the screen cannot differ; the
// tests in fast_test.go compare both paths byte for byte anyway.

// maxFastArgs bounds the parameters decoded on the stack; longer
// sequences take the slow path.
const maxFastArgs = 16

// write parses p, taking the fast path where it applies, and returns how
// many bytes it consumed, as Write always did: all but a lone invalid
// byte at the very end (which it reports as not written).
func (t *State) write(p []byte) int {
	fast := !t.slow && t.DebugLogger == nil
	i := 0
	for i < len(p) {
		if fast && t.ground {
			if n := t.fast(p[i:]); n > 0 {
				i += n
				continue
			}
		}
		c, sz := rune(p[i]), 1
		if c >= utf8.RuneSelf {
			c, sz = utf8.DecodeRune(p[i:])
		}
		i += sz
		if c == utf8.RuneError && sz == 1 {
			if i == len(p) {
				// not enough bytes for a full rune
				return i - 1
			}
			t.logln("invalid utf8 sequence")
			continue
		}
		t.put(c)
	}
	return len(p)
}

// fast consumes what it can of p while the parser stays between
// sequences: characters (ESC excepted) and plain CSI sequences.
func (t *State) fast(p []byte) int {
	i := 0
	for i < len(p) && t.ground {
		c := rune(p[i])
		switch {
		case c == 033:
			n := t.plainCSI(p[i:])
			if n == 0 {
				return i
			}
			i += n
		case c >= ' ' && c < 0x7f && t.cur.State&cursorWrapNext == 0 && t.cur.Attr.Mode&attrGfx == 0 && t.rowStays():
			i += t.asciiRun(p[i:])
		case c < utf8.RuneSelf:
			t.parse(c)
			i++
		default:
			r, sz := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && sz == 1 {
				return i // the slow path's rules for invalid bytes
			}
			t.parse(r)
			i += sz
		}
	}
	return i
}

// asciiRun stores the printable ASCII at the start of p, up to the right
// margin, as parse stores one character after another (setChar's glyph,
// the cursor moved on or its wrap left pending at the margin), and
// returns how many it stored: at least one. A full-screen program's rows
// are mostly such runs. The caller checked what parse would do otherwise:
// no wrap pending, no line drawing, a row the cursor's moves keep.
func (t *State) asciiRun(p []byte) int {
	x, y := t.cur.X, t.cur.Y
	n := 1
	for n < len(p) && x+n < t.cols && p[n] >= ' ' && p[n] < 0x7f {
		n++
	}
	a := &t.cur.Attr
	g := *a
	if a.Mode&attrBold != 0 && a.FG < 8 {
		g.FG = a.FG + 8
	}
	if a.Mode&attrReverse != 0 {
		g.FG, g.BG = a.BG, a.FG
	}
	row := t.lines[y][x : x+n]
	for k := range row {
		g.Char = rune(p[k])
		row[k] = g
	}
	t.changed |= ChangedScreen
	t.dirty[y] = true
	switch {
	case x+n < t.cols:
		t.moveTo(x+n, y)
	case n > 1:
		t.moveTo(t.cols-1, y) // the last move parse made, before the margin
		fallthrough
	default:
		t.cur.State |= cursorWrapNext
	}
	return n
}

// rowStays reports whether moving the cursor along its row keeps it on
// that row: moveTo clamps it into the scroll region in origin mode.
func (t *State) rowStays() bool {
	return t.cur.State&cursorOrigin == 0 || t.cur.Y >= t.top && t.cur.Y <= t.bottom
}

// plainCSI performs the CSI sequence at the start of p when it is whole
// and plain, and returns its length; else it returns 0 and does nothing.
func (t *State) plainCSI(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	var args [maxFastArgs]int
	n, v, digits, ok := 0, 0, 0, true // ok: csi.parse still takes fields
	j := 2
	for ; j < len(p); j++ {
		b := p[j]
		switch {
		case b >= '0' && b <= '9':
			if digits == 18 {
				return 0 // might overflow Atoi: the slow path decides
			}
			v = v*10 + int(b-'0')
			digits++
			continue
		case b == ';':
			// csi.parse stops at the first field Atoi rejects: an empty one.
			if digits == 0 {
				ok = false
			}
			if ok {
				if n == maxFastArgs {
					return 0
				}
				args[n] = v
				n++
			}
			v, digits = 0, 0
			continue
		case b >= 0x40 && b <= 0x7e:
		default:
			return 0 // a private marker, an intermediate or a control
		}
		break
	}
	// csi.put dispatches early once its buffer holds 256 bytes.
	if j == len(p) || j-1 >= 256 {
		return 0
	}
	final := p[j]
	if j > 2 && ok { // the last field, unless there were none at all
		if digits == 0 {
			ok = false
		} else {
			if n == maxFastArgs {
				return 0
			}
			args[n] = v
			n++
		}
	}
	c := &t.csi
	c.reset() // what ESC does
	c.buf = append(c.buf, p[2:j+1]...)
	c.mode = final
	c.args = append(c.args, args[:n]...)
	t.handleCSI()
	return j + 1
}

// SlowPath turns the fast path off (on) or back on: for tests that compare
// a screen built either way.
func (t *State) SlowPath(on bool) {
	t.lock()
	t.slow = on
	t.unlock()
}
