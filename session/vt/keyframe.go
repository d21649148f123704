package vt

import (
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Keyframes. A keyframe is the screen as bytes: written to a Screen of the
// same size, whatever it showed before, it reproduces every cell with its
// pen (attributes, colours, underline style and colour, link) and cluster,
// the cursor (position, a pending wrap, visibility, shape, colour), the
// saved cursor, the tab stops, the modes, the scroll region, the charsets, the pen and
// the title; on the alternate screen, the main screen under it too. A
// recording starts with one, so it may start in the middle of a stream.
//
// It does not carry the scrollback.

// vtOrigin is vt10x's unexported cursorOrigin bit of Cursor.State.
const vtOrigin = 4

// Keyframe appends a keyframe of the screen to dst and returns it.
func (s *Screen) Keyframe(dst []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keyframe(dst)
}

// kfWriter builds a keyframe, tracking the pen the target holds.
type kfWriter struct {
	b     []byte
	links []string
	pen   style
}

func (k *kfWriter) setPen(st style) {
	if st.link != k.pen.link {
		k.b = appendLink(k.b, k.links, st.link)
	}
	if st.sgr() != k.pen.sgr() {
		k.b = appendSGR(k.b, st)
		if !st.ul.IsDefault() && st.attrs&AttrUnderline == 0 {
			// appendSGR leaves out an underline colour without an
			// underline; the pen keeps it for a later SGR 4.
			k.b = appendULColor(k.b[:len(k.b)-1], st.ul)
			k.b = append(k.b, 'm')
		}
	}
	k.pen = st
}

// cup moves to 0-based (x, y).
func (k *kfWriter) cup(x, y int) {
	k.b = append(k.b, "\x1b["...)
	k.b = appendInt(k.b, y+1)
	k.b = append(k.b, ';')
	k.b = appendInt(k.b, x+1)
	k.b = append(k.b, 'H')
}

func (k *kfWriter) charsets(g [2]byte, shift int) {
	k.b = append(k.b, '\x1b', '(', g[0], '\x1b', ')', g[1])
	if shift == 1 {
		k.b = append(k.b, 0x0e) // SO
	} else {
		k.b = append(k.b, 0x0f) // SI
	}
}

func (k *kfWriter) mode(prefix string, n int, set bool) {
	k.b = append(k.b, "\x1b["...)
	k.b = append(k.b, prefix...)
	k.b = appendInt(k.b, n)
	if set {
		k.b = append(k.b, 'h')
	} else {
		k.b = append(k.b, 'l')
	}
}

// cell appends what cell c shows (the caller skips placeholders).
func (k *kfWriter) cell(c *Cell) {
	switch {
	case c.Text != "":
		k.b = append(k.b, c.Text...)
	case c.Rune == 0:
		k.b = append(k.b, ' ')
	default:
		k.b = utf8.AppendRune(k.b, c.Rune)
	}
}

// row paints row y from column 0, skipping the blanks at its end (the
// screen was cleared in the default colours). A row that wraps is painted
// to its end, so that the next row's first character, painted without a
// cursor move, wraps as it did and vt10x marks the row (reflow joins it);
// the pad before a wide character that wrapped is left for that wrap to
// make again. It reports whether the next row must go on from there.
func (k *kfWriter) row(y int, row []Cell, wraps, cont bool) bool {
	end := len(row)
	if wraps {
		if row[end-1].Flags&FlagPad != 0 {
			end--
		}
	} else {
		for end > 0 && plainBlank(&row[end-1]) {
			end--
		}
	}
	if end == 0 {
		return false
	}
	if !cont {
		k.cup(0, y)
	}
	wide := false // the cell before was non-ASCII
	for x := 0; x < end; x++ {
		c := &row[x]
		if c.Flags&FlagPlaceholder != 0 {
			continue // painted with its wide character
		}
		nonASCII := c.Text != "" || c.Rune >= utf8.RuneSelf
		if nonASCII && wide {
			// Two neighbours written apart may join when written
			// together (regional indicators, a joiner and a
			// pictograph): a cursor move keeps them apart.
			k.cup(x, y)
		}
		wide = nonASCII
		k.setPen(c.style())
		k.cell(c)
	}
	return wraps
}

func plainBlank(c *Cell) bool {
	return (c.Rune == ' ' || c.Rune == 0) && c.Text == "" && c.Flags == 0 && c.style() == (style{})
}

// keyframe appends the keyframe; the caller holds the lock.
func (s *Screen) keyframe(dst []byte) []byte {
	s.flush()
	s.loadCursor()
	st := &s.f.st
	k := &kfWriter{b: dst, links: s.f.links.urls}
	// RIS (leaving the alternate screen first, see escPlain), then a clear:
	// vt10x's reset clears only part of a screen wider than tall.
	k.b = append(k.b, "\x1bc\x1b[H\x1b[2J\x1b]2;"...)
	k.b = append(k.b, st.title...)
	k.b = append(k.b, "\x1b\\"...)
	s.keyframeTabs(k)
	if cap(s.rowBuf) < s.cols {
		s.rowBuf = make([]Cell, s.cols)
	}
	row := s.rowBuf[:s.cols]
	if st.modes.AltScreen {
		s.keyframeMain(k, row)
		k.b = keyframeKeyboard(k.b, &st.kbd[0])
		s.keyframeSaved(k, "\x1b[?1049h") // enters, saving the cursor as 1049 did here
	} else {
		s.keyframeSaved(k, "\x1b7")
	}
	k.charsets([2]byte{'B', 'B'}, 0)
	s.keyframeRows(k, row, s.readRowInto)
	top := s.keyframeRegion(k)
	// The modes go before the cursor, which any of them would make forget
	// the last character; autowrap after a pending wrap it did not stop.
	wrapFirst := s.cur.wrap && !st.autowrap
	if wrapFirst {
		s.keyframeCursor(k, row, top)
	}
	s.keyframeModes(k)
	if !wrapFirst {
		s.keyframeCursor(k, row, top)
	}
	if st.modes.Insert {
		k.mode("", 4, true) // the Screen's own: vt10x sees nothing
	}
	k.charsets(st.g, st.shift)
	k.setPen(st.pen)
	return s.keyframePartial(k.b)
}

// keyframeSaved saves, with save, the saved cursor's position, origin
// mode, pen and charsets.
func (s *Screen) keyframeSaved(k *kfWriter, save string) {
	sv := &s.f.st.saved
	origin := s.saved.State&vtOrigin != 0
	if origin {
		k.mode("?", 6, true) // the region is the whole screen yet
	}
	// vt10x's restore clears a pending wrap: none to save.
	k.cup(s.saved.X, s.saved.Y)
	k.setPen(sv.pen)
	k.charsets(sv.g, sv.shift)
	k.b = append(k.b, save...)
	if origin {
		k.mode("?", 6, false) // saved with the cursor; reset for now
	}
}

// mainRow decodes row y of the main screen: the copy under the alternate
// screen, or the screen itself.
func (s *Screen) mainRow(y int, row []Cell) {
	if !s.f.st.modes.AltScreen {
		s.readRowInto(y, row)
		return
	}
	clear(row)
	if i := y * s.altMainCols; i < len(s.altMain) {
		src := s.altMain[i : i+s.altMainCols]
		for x := range min(len(src), len(row)) {
			row[x] = s.cellOf(src[x])
		}
	}
	fixWide(row)
}

// keyframeMain paints the main screen as the alternate one hides it, then
// sets the saved cursor.
func (s *Screen) keyframeMain(k *kfWriter, row []Cell) {
	k.charsets([2]byte{'B', 'B'}, 0)
	s.keyframeRows(k, row, s.mainRow)
}

// keyframeRegion sets the scroll region and origin mode, and returns
// the row cursor moves count from.
func (s *Screen) keyframeRegion(k *kfWriter) int {
	f := s.f
	if f.top != 0 || f.bot != s.rows-1 {
		k.b = append(k.b, "\x1b["...)
		k.b = appendInt(k.b, f.top+1)
		k.b = append(k.b, ';')
		k.b = appendInt(k.b, f.bot+1)
		k.b = append(k.b, 'r')
	}
	// vt10x keeps origin mode in its cursor, which DECRC restores: that
	// is the mode cursor moves follow.
	if s.term.Cursor().State&vtOrigin != 0 {
		k.mode("?", 6, true)
		return f.top
	}
	return 0
}

// keyframeCursor places the cursor. When it follows the last character
// printed (or a wrap is pending), that character is printed again: it
// leaves the cursor, the pending wrap and what the next character joins
// or repeats (REP) as they were.
func (s *Screen) keyframeCursor(k *kfWriter, row []Cell, top int) {
	x, y := s.cur.x, s.cur.y
	end := x
	if s.cur.wrap {
		end = s.cols
	}
	s.readRowInto(y, row)
	switch {
	case s.last.ok && s.last.x >= 0 && s.last.x+s.last.w == end && row[s.last.x].Flags&FlagPlaceholder == 0:
		x = s.last.x
	case s.cur.wrap:
		if x > 0 && row[x].Flags&FlagPlaceholder != 0 {
			x--
		}
		k.cup(x, y-top)
		k.setPen(row[x].style())
		k.cell(&row[x])
		// HT with a wrap pending moves nothing, and makes the Screen
		// forget the character, as it had here.
		k.b = append(k.b, '\t')
		return
	default:
		k.cup(x, y-top)
		return
	}
	k.cup(x, y-top)
	k.setPen(row[x].style())
	if r := s.last.r; r < utf8.RuneSelf && row[x].Text == "" && row[x].Rune != r {
		// Printed in the line drawing set, and REP repeats what was
		// printed: print that, in that set (the charsets come after).
		k.b = append(k.b, '\x1b', '(', '0', byte(r))
		return
	}
	k.cell(&row[x])
}

// keyframeModes sets the modes the reset cleared but insert mode, after
// the cells, so that none of them changes how they were painted.
func (s *Screen) keyframeModes(k *kfWriter) {
	st := &s.f.st
	m := &st.modes
	for _, b := range [...]struct {
		prefix  string
		n       int
		set, on bool // on: the reset left it otherwise
	}{
		{"?", 7, false, !st.autowrap}, {"", 20, true, st.lnm},
		{"?", 1, true, m.AppCursor}, {"?", 2004, true, m.BracketedPaste},
		{"?", 1004, true, m.FocusEvents}, {"?", 12, true, m.CursorBlink},
		{"?", 25, false, !m.CursorVisible},
	} {
		if b.on {
			k.mode(b.prefix, b.n, b.set)
		}
	}
	if m.AppKeypad {
		k.b = append(k.b, "\x1b="...)
	}
	if n := [...]int{0, 9, 1000, 1002, 1003}[m.Mouse%5]; n != 0 {
		k.mode("?", n, true)
	}
	if n := [...]int{0, 1005, 1006, 1015}[m.MouseEncoding%4]; n != 0 {
		k.mode("?", n, true)
	}
	if st.shape != 0 {
		k.b = append(k.b, "\x1b["...)
		k.b = appendInt(k.b, int(st.shape))
		k.b = append(k.b, " q"...)
	}
	if st.cursorColor != "" {
		k.b = append(k.b, "\x1b]12;"...)
		k.b = append(k.b, st.cursorColor...)
		k.b = append(k.b, "\x1b\\"...)
	}
	if m.SyncOutput {
		k.mode("?", 2026, true)
	}
	if m.ThemeUpdates {
		k.mode("?", 2031, true)
	}
	k.b = keyframeKeyboard(k.b, s.f.shownKeys())
}

// keyframePartial appends the escape sequence or string the pre-parser
// is in the middle of, so that the rest of it, in the next Output,
// completes it on replay.
func (s *Screen) keyframePartial(b []byte) []byte {
	f := s.f
	if f.str == strNone {
		return append(b, f.seq...)
	}
	switch f.str {
	case strOSC:
		b = append(b, "\x1b]"...)
	case strDCS:
		b = append(b, "\x1bP"...)
	default:
		b = append(b, "\x1b_"...)
	}
	if f.strLong {
		// Its start was kept and the rest dropped, so it will be dropped:
		// any text too long to keep does as well.
		for range f.stringLimit() + 1 {
			b = append(b, 'x')
		}
	} else {
		b = append(b, f.strBuf...)
	}
	if f.strEsc {
		b = append(b, '\x1b')
	}
	return b
}

// resizeAltMain resizes the copy of the main screen as vt10x resizes the
// hidden main screen: slid up by slide rows, cut or padded with blanks.
func (s *Screen) resizeAltMain(slide, cols, rows int) {
	old, oldCols := s.altMain, s.altMainCols
	if oldCols == 0 {
		return
	}
	oldRows := len(old) / oldCols
	next := make([]vt10x.Glyph, cols*rows)
	for y := range min(rows, oldRows) {
		sy := y + max(slide, 0)
		if sy >= oldRows {
			break
		}
		copy(next[y*cols:y*cols+min(cols, oldCols)], old[sy*oldCols:sy*oldCols+min(cols, oldCols)])
	}
	s.altMain, s.altMainCols = next, cols
}

// noteSaved records the cursor vt10x is about to save (it keeps it
// private), with its pen, for keyframes.
func (s *Screen) noteSaved() {
	s.flush()
	s.saved = s.term.Cursor()
}
