package vt

import (
	"strings"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Bulk scrolling. vt10x allocates for every character it parses, so a
// child printing much faster than anyone can read (a build log, cat of a
// big file) was bound by vt10x. Yet most of those lines only pass through
// the screen on their way into the scrollback. When the text ahead is
// simple (printable characters, CR, LF, plain SGR) and holds more lines
// than the screen, the lines that will have scrolled off before the text
// ends are laid out here, straight into scrollback rows, exactly as vt10x
// would have stored them; vt10x parses only their SGR sequences (to keep
// the pen) and the last screenful of text.
//
// Exactness rests on three facts of simple text: a row the cursor leaves
// (by LF or autowrap on the bottom line) never changes again; a scroll
// blanks the new bottom row in default colours; and the rows still on
// vt10x's screen after the bulk are scrolled away by the screenful that
// follows, so their captures are skipped (s.suppress) rather than taken.
// TestBulkMatchesSlowPath checks the result against the ordinary path.

// bulkMinLines is how many lines beyond a screenful make a bulk worth its
// setup (one pass over the screen's rows).
const bulkMinLines = 32

// writeText feeds settled text, laying out bulk stretches here and the
// rest through the filter. Each byte is scanned at most twice.
func (s *Screen) writeText(text string) {
	for len(text) > 0 {
		if !s.bulkReady() {
			n := lineEnd(text, 0)
			s.f.write(text[:n])
			text = text[n:]
			continue
		}
		end, simple := s.bulkPrefix(text)
		if end > 0 {
			s.bulkScroll(text[:end])
			text = text[end:]
			continue
		}
		n := lineEnd(text, simple)
		s.f.write(text[:n])
		text = text[n:]
	}
	s.suppress = 0 // always spent by the screenful after a bulk; never carried over
	if cap(s.shapes) > keptShapes {
		s.shapes = nil // a slice of blank lines measured: not kept for the pane's life
	}
}

// keptShapes is how many line measures a screen keeps between writes: a
// slice of a log's lines (64 KiB of 80-column lines is some 800), not
// one of empty lines (64 Ki of them, 768 KiB of measures).
const keptShapes = 4096

// lineEnd returns the index just after the first LF at or after i, or the
// end of text.
func lineEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

// bulkReady reports whether the screen is in the state bulk layout
// assumes: the filter between sequences, the main screen scrolling as a
// whole into the scrollback, plain characters with autowrap, and the
// cursor on the bottom row.
func (s *Screen) bulkReady() bool {
	f := s.f
	if s.noBulk || s.cols < 2 || !f.groundState() {
		return false
	}
	st := &f.st
	if st.modes.AltScreen || st.modes.Insert || !st.autowrap || st.origin || st.lnm || st.gfx ||
		f.top != 0 || f.bot != s.rows-1 {
		return false
	}
	s.loadCursor()
	return s.cur.y == s.rows-1
}

// bulkPrefix finds the simple prefix of text and returns where the bulk
// part of it ends (just after the LF that leaves a screenful of LFs in the
// prefix; 0 when the prefix is too short) and where the prefix ends. As
// it goes it measures each line of the prefix as directLine would
// (s.shapes), so a bulk's lines are scanned once before they are laid
// out, not twice.
func (s *Screen) bulkPrefix(text string) (bulkEnd, simpleEnd int) {
	shapes := s.shapes[:0]
	i, start := 0, 0
	// Of the line being scanned: the bytes that take no column (SGR, CR,
	// the continuation bytes of UTF-8), whether a CR precedes its LF, and
	// whether it holds what directLine refuses.
	skip, cr, bad := 0, false, false
scan:
	for i < len(text) {
		if i+8 <= len(text) && printable8(load64(text, i)) {
			i += 8
			continue
		}
		switch c := text[i]; {
		case c >= 0x20 && c < 0x7f:
			i++
		case c == '\n':
			cols := i - start - skip
			shapes = append(shapes, lineShape{end: int32(i + 1), cols: int32(cols), cr: cr, ok: !bad && cols <= s.cols})
			i++
			start, skip, cr, bad = i, 0, false, false
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				cr = true
			} else {
				bad = true
			}
			skip++
			i++
		case c == 0x1b:
			n := plainSGRLen(text[i:])
			if n == 0 {
				break scan
			}
			skip += n
			i += n
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(text[i:])
			w := runeWidth(r)
			if w == 0 || r == placeholder || r == utf8.RuneError && n == 1 ||
				isStandIn(r) || isRegional(r) {
				break scan
			}
			if w != 1 || r == padRune {
				bad = true
			}
			skip += n - 1
			i += n
		default:
			break scan
		}
	}
	s.shapes = shapes
	if len(shapes) < s.rows+bulkMinLines {
		return 0, i
	}
	return int(shapes[len(shapes)-1-s.rows].end), i
}

// plainSGRLen returns the length of the SGR sequence (ESC [ digits and
// semicolons m) at the start of t, or 0.
func plainSGRLen(t string) int {
	if len(t) < 3 || t[1] != '[' {
		return 0
	}
	for i := 2; i < len(t) && i < 64; i++ {
		switch c := t[i]; {
		case c == 'm':
			return i + 1
		case c != ';' && (c < '0' || c > '9'):
			return 0
		}
	}
	return 0
}

// bulkScroll lays out text (simple, ending with an LF) into the
// scrollback, starting from the screen as vt10x has it.
func (s *Screen) bulkScroll(text string) {
	s.bulks++
	s.flush()
	// The rows above the cursor leave the screen first, as they are.
	for y := 0; y < s.rows-1; y++ {
		s.pushLine(s.cols, s.termRow(y))
	}
	if cap(s.bulkRow) < s.cols {
		s.bulkRow = make([]vt10x.Glyph, s.cols)
	}
	row := s.bulkRow[:s.cols]
	for x := range row {
		row[x] = s.term.Cell(x, s.rows-1)
	}
	s.inBulk = true
	b := bulk{s: s, row: row, x: s.cur.x, wrap: s.cur.wrap, used: s.cols}
	b.lay(text, s.shapes)
	s.inBulk = false
	// vt10x still shows the old screen. One scroll leaves its bottom row
	// blank as a scroll does (filled with the erase pen, as the bulk row
	// is); the screenful that follows scrolls away the rest, whose
	// captures are skipped: their rows are in the scrollback.
	cup := func(p []byte, x int) []byte {
		p = append(p, "\x1b["...)
		p = appendInt(p, s.rows)
		p = append(p, ';')
		p = appendInt(p, x+1)
		return append(p, 'H')
	}
	s.pending = append(cup(s.pending, 0), '\n')
	s.fillScrolled(true)
	s.pending = cup(s.pending, b.x)
	s.flush()
	s.cur = cursorModel{known: true, x: b.x, y: s.rows - 1}
	s.last = lastPrint{}
	s.suppress = s.rows - 1
}

// lay lays out text: each line direct when it can be, else a glyph at a
// time into the row. shapes are its lines as bulkPrefix measured them.
func (b *bulk) lay(text string, shapes []lineShape) {
	tried := -1      // the LF of the last line direct refused: not tried again after its SGRs
	k, start := 0, 0 // the line i is in, and where it starts
	for i := 0; i < len(text); {
		if b.used == 0 && b.x == 0 && !b.wrap && i > tried {
			var sh lineShape
			if i == start {
				sh = shapes[k]
				sh.end -= int32(i)
			} else {
				// Past a bare LF, a CR brought the cursor back to a
				// blank row mid-line: measure what is left of it.
				sh = b.directLine(text[i:])
			}
			if n := b.direct(text[i:], sh); n > 0 {
				i += n
				k, start = k+1, i
				continue
			}
			tried = int(shapes[k].end) - 1
		}
		switch c := text[i]; {
		case c == '\n':
			b.emit(false)
			b.wrap = false
			i++
			k, start = k+1, i
		case c == '\r':
			b.x, b.wrap = 0, false
			i++
		case c == 0x1b:
			n := plainSGRLen(text[i:])
			b.sgr(text[i : i+n])
			i += n
		default:
			r, n := rune(c), 1
			if c >= 0x80 {
				r, n = utf8.DecodeRuneInString(text[i:])
			}
			b.print(r, runeWidth(r))
			i += n
		}
	}
}

// bulk is the bottom row being laid out.
type bulk struct {
	s    *Screen
	row  []vt10x.Glyph
	used int // cells from here on are blank, as a scroll leaves them
	x    int
	wrap bool
}

// penKey is an SGR sequence applied to a pen (its id: sweeps, which free
// ids, empty the cache).
type penKey struct {
	pen uint32
	sgr string
}

// penResult is what the sequence makes of the pen.
type penResult struct {
	st style
	id uint32
}

// sgr applies an SGR sequence to the pen. The first time a sequence meets
// a pen, the filter works it out as always; the result is remembered,
// since logs repeat a few colours.
func (b *bulk) sgr(seq string) {
	s := b.s
	k := penKey{s.printPen, seq}
	m := &s.penRecent[penSlot(k)]
	if m.k != k {
		v, ok := s.penCache[k]
		if !ok {
			s.f.write(seq)
			if s.penCache == nil || len(s.penCache) > 4096 {
				s.penCache = map[penKey]penMemo{} // bounded: a child could vary colours forever
			}
			// The key is the sequence's own copy: seq is a slice of the
			// window's text, which it would keep alive.
			k.sgr = strings.Clone(seq)
			v = penMemo{k, penResult{s.f.st.pen, s.printPen}}
			s.penCache[k] = v
		}
		*m = v
	}
	s.f.st.pen, s.printPen, s.erasePenID = m.r.st, m.r.id, -1
}

// penMemo is a sequence applied to a pen and what it made of it. The
// memo in front of penCache holds penSlots of them, one to a slot by a
// hash cheaper than the map's: a coloured log sets a few colours and
// resets each, fourteen pairs in gen-output.py's, which a memo of the
// last eight, scanned in turn, missed every time. An empty memo has no
// sequence, which no SGR is.
type penMemo struct {
	k penKey
	r penResult
}

// penSlots is the memo's size: a power of two.
const penSlots = 32

// penSlot is k's slot in the memo (FNV-1a over the pen and the sequence).
func penSlot(k penKey) int {
	h := (2166136261 ^ k.pen) * 16777619
	for i := 0; i < len(k.sgr); i++ {
		h = (h ^ uint32(k.sgr[i])) * 16777619
	}
	return int(h>>16) & (penSlots - 1)
}

// print places r (w columns) as the wrapper's put and vt10x would.
func (b *bulk) print(r rune, w int) {
	if w == 2 && b.x == b.s.cols-1 && !b.wrap {
		b.putPen(padRune, 0) // a wide rune does not start in the last column
	}
	b.put(r)
	if w == 2 {
		b.put(placeholder)
	}
}

func (b *bulk) put(r rune) { b.putPen(r, b.s.printPen) }

func (b *bulk) putPen(r rune, pen uint32) {
	if b.wrap {
		b.row[b.s.cols-1].Mode |= vtWrap
		b.emit(true)
		b.x, b.wrap = 0, false
	}
	// vt10x's setChar with the pen the wrapper gives it.
	g := penGlyph(pen)
	g.Char = r
	b.row[b.x] = g
	b.used = max(b.used, b.x+1)
	if b.x+1 < b.s.cols {
		b.x++
	} else {
		b.wrap = true
	}
}

// emit sends the finished row to the scrollback and starts a blank one, as
// a scroll leaves the bottom row: spaces with the erase pen.
func (b *bulk) emit(bool) {
	b.s.pushLine(b.used, b.row)
	b.blankRow()
}

// blankRow blanks the bulk row as a scroll leaves the new bottom row.
func (b *bulk) blankRow() {
	row := b.row
	blank := penGlyph(b.s.erasePen())
	blank.Char = ' '
	if blank.FG != vt10x.DefaultFG {
		b.used = len(row) // a coloured blank shows
	}
	for x := range row[:b.used] {
		row[x] = blank
	}
	if blank.FG == vt10x.DefaultFG {
		b.used = 0
	}
}
