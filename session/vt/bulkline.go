package vt

import "unicode/utf8"

// Direct lines. Within a bulk most lines are the same shape: they start
// on a blank row at column 0, hold characters one column wide and plain
// SGR sequences, fit the width, and end with CR LF or LF. Laid out a glyph
// at a time, such a line cost a glyph written per character, three passes
// over the row to make its scrollback line (pushLine, pushPlain) and one
// to blank the row again: most of a flood's parse. A direct line goes
// from the text to the scrollback line in one pass: its bytes are the
// line's text as they are, and each SGR starts a run when it changes the
// style. The bulk row is never touched, so it stays the blank row that
// the glyph path would have left after the line's LF.
//
// The result is what pushLine makes of the glyph row, trailing blanks
// trimmed the same way (TestBulkMatchesSlowPath and FuzzBulk compare the
// two paths cell by cell).

// lineShape is a line measured for a direct layout: the length of the
// line through its LF, the columns it fills and whether a CR precedes
// that LF; ok is false for any other shape: a CR elsewhere, a character
// not one column wide, more characters than the row holds, no LF.
type lineShape struct {
	end, cols int32 // a bulk's text is a write's slice, at most maxWriteSlice
	cr, ok    bool
}

// directLine measures the line at the start of t for a direct layout.
// bulkPrefix measures the lines of a bulk as it finds them; this measures
// one from where a CR left the cursor mid-line (and is what tests hold
// bulkPrefix's shapes to).
func (b *bulk) directLine(t string) lineShape {
	cols, cr := 0, false
	for i := 0; i < len(t); {
		switch c := t[i]; {
		case c >= 0x20 && c < 0x7f:
			cols++
			i++
		case c == '\n':
			return lineShape{end: int32(i + 1), cols: int32(cols), cr: cr, ok: cols <= b.s.cols}
		case c == '\r':
			if i+1 >= len(t) || t[i+1] != '\n' {
				return lineShape{}
			}
			cr = true
			i++
		case c == 0x1b:
			i += plainSGRLen(t[i:]) // the bulk's text holds no other sequence
		default:
			r, n := utf8.DecodeRuneInString(t[i:])
			if runeWidth(r) != 1 || r == padRune || r == placeholder || isStandIn(r) {
				return lineShape{}
			}
			cols++
			i += n
		}
		if cols > b.s.cols {
			return lineShape{}
		}
	}
	return lineShape{}
}

// direct lays out the line at the start of t, measured as sh, straight
// into the scrollback when it has the shape directLine accepts and the
// row is blank with the cursor at its start. It returns the bytes it
// consumed, 0 (having done nothing) when the line is not such a line.
func (b *bulk) direct(t string, sh lineShape) int {
	if b.x != 0 || b.wrap || b.used != 0 || b.s.noDirect || !sh.ok {
		return 0
	}
	end, cols, cr := int(sh.end), int(sh.cols), sh.cr
	s := b.s
	var l *sbLine
	if s.sb.max > 0 {
		s.sb.compactStyles()
		l = s.sb.slot()
	}
	b.directText(t[:end], l != nil)
	if l != nil {
		s.textBuf, s.sb.build.runs = trimDirect(s, s.textBuf, s.sb.build.runs, s.tailPens)
		l.pack(s.textBuf, s.sb.build.runs, nil, s.sb.lineArena())
		l.span, l.wrapped, l.special = 0, false, false
	}
	s.directs++
	b.blankRow()
	if cr {
		b.x = 0
	} else {
		b.x = min(cols, s.cols-1)
	}
	return end
}

// directText applies the line's SGRs and gathers its text into
// s.textBuf, the pens of its trailing spaces into s.tailPens, and its
// runs into the scrollback's scratch (when runs: there is one to fill).
func (b *bulk) directText(t string, runs bool) {
	s := b.s
	text, tail, rs := s.textBuf[:0], s.tailPens[:0], s.sb.build.runs[:0]
	pen := ^uint32(0) // the pen the last run was made for
	for i := 0; i < len(t); {
		switch t[i] {
		case 0x1b:
			n := plainSGRLen(t[i:])
			b.sgr(t[i : i+n])
			pen = ^uint32(0) // a sweep in sgr may have given the id another style
			i += n
			continue
		case '\r', '\n':
			i++
			continue
		}
		// Characters up to the next sequence, CR or LF: one pen, one
		// column each, their bytes the line's text as they are.
		end, chars := textRun(t[i:])
		j, n, spaces := i+end, int32(chars), trailingSpaces(t[i:i+end])
		text = append(text, t[i:j]...)
		if spaces < j-i {
			tail = tail[:0]
		}
		for range spaces {
			tail = append(tail, s.printPen)
		}
		i = j
		if !runs {
			continue
		}
		if id := s.printPen; id != pen {
			pen = id
			st := s.sb.table().internPen(id, s.cellStyle(id))
			if k := len(rs); k == 0 || rs[k-1].id != st {
				rs = append(rs, sbRun{id: st})
			}
		}
		rs[len(rs)-1].n += n
	}
	s.textBuf, s.tailPens, s.sb.build.runs = text, tail, rs
}

// trimDirect drops the trailing spaces pushLine would have left out of
// a direct line's text and runs (tail: the pens they were drawn with):
// first those with no pen or a cleared one, then those that show as
// blank cells.
func trimDirect(s *Screen, text []byte, runs []sbRun, tail []uint32) ([]byte, []sbRun) {
	k := len(tail)
	for k > 0 && (tail[k-1] == 0 || s.clearedPen(tail[k-1])) {
		k--
	}
	for k > 0 {
		g := penGlyph(tail[k-1])
		g.Char = ' '
		if c := s.cellOf(g); !blank(&c) {
			break
		}
		k--
	}
	for drop := len(tail) - k; drop > 0; {
		r := &runs[len(runs)-1]
		d := min(drop, int(r.n))
		r.n -= int32(d)
		drop -= d
		if r.n == 0 {
			runs = runs[:len(runs)-1]
		}
	}
	return text[:len(text)-(len(tail)-k)], runs
}
