package vt

import "github.com/hinshun/vt10x"

// Pens. vt10x keeps only a few attributes, brightens bold base colours
// and reads rgb(0,0,b) back as a palette entry, so the wrapper keeps the
// pen itself: the filter tracks every SGR (and OSC 8) into a style, the
// Screen interns that style in a bounded table and hands vt10x only the
// style's number, as a foreground colour number (38;2;id>>16;id>>8&255;id&255
// or a shorter form) with no attribute. A cell vt10x stores thus carries, in its FG, the id
// of the exact style it was drawn with; Snapshot maps it back.
//
// Erasing takes only the background (xterm's and tmux's background colour
// erase), so erase operations run with the id of {bg} instead of the full
// pen; vt10x's pen is switched lazily, only when the id it holds differs.
//
// The table forgets ids no cell uses: when it reaches its limit, a sweep
// marks the ids of the visible cells, of the main screen while the
// alternate one is shown (collected on entry, see pinScreen), of the bulk
// row and of the pens in use, and frees the rest. Scrollback lines store
// resolved styles, never ids.

// penTable interns styles; id 0 is the default style.
type penTable struct {
	pens  []penEntry
	ids   map[style]uint32
	free  []uint32
	limit int
	marks []bool
	// recent is a memo in front of ids, one style to a slot by a hash
	// cheaper than the map's: a full-screen program sets the same few
	// pens before every run it draws, and looking each up in the map
	// took a tenth of the parse of htop's output. An empty slot holds
	// the default style, which intern answers before it looks. A sweep
	// frees ids, so it empties the memo.
	recent [penRecentSlots]recentPen
}

// recentPen is a style the table interned and its id.
type recentPen struct {
	st style
	id uint32
}

// penRecentSlots is the memo's size: a power of two.
const penRecentSlots = 16

// recentSlot is st's slot in the memo.
func recentSlot(st *style) int {
	x := uint32(st.attrs) | uint32(st.under)<<16
	if st.cleared {
		x |= 1 << 24
	}
	h := uint32(st.fg)*0x9e3779b1 ^ uint32(st.bg)*0x85ebca77 ^ uint32(st.ul)*0xc2b2ae3d ^
		x*0x27d4eb2f ^ uint32(st.link)*0x165667b1
	return int(h >> 28)
}

type penEntry struct {
	st    style
	erase int32 // id of {bg: st.bg}, -1 until asked for
	live  bool
}

const minPenLimit = 1024

func (t *penTable) init() {
	t.pens = append(t.pens[:0], penEntry{live: true})
	t.ids = map[style]uint32{}
	t.free = t.free[:0]
	t.limit = minPenLimit
	t.recent = [penRecentSlots]recentPen{}
}

// full reports whether interning a new style needs a sweep first.
func (t *penTable) full() bool { return len(t.free) == 0 && len(t.pens) >= t.limit }

// intern returns the id of st, adding it when new (the caller sweeps first
// when the table is full).
func (t *penTable) intern(st style) uint32 {
	if st == (style{}) {
		return 0
	}
	m := &t.recent[recentSlot(&st)]
	if m.st == st {
		return m.id
	}
	if id, ok := t.ids[st]; ok {
		*m = recentPen{st, id}
		return id
	}
	var id uint32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.pens[id] = penEntry{st: st, erase: -1, live: true}
	} else {
		id = uint32(len(t.pens))
		t.pens = append(t.pens, penEntry{st: st, erase: -1, live: true})
	}
	t.ids[st] = id
	*m = recentPen{st, id}
	return id
}

// style returns the style of id; an unknown id (never produced) is the
// default.
func (t *penTable) style(id uint32) style {
	if int(id) < len(t.pens) {
		return t.pens[id].st
	}
	return style{}
}

// glyphPen returns the pen id a vt10x glyph was drawn with.
func glyphPen(g vt10x.Glyph) uint32 {
	if g.FG >= 1<<24 {
		return 0 // vt10x's default (RIS, DECSTR, a fresh screen)
	}
	return uint32(g.FG)
}

// penGlyph is the vt10x pen for id.
func penGlyph(id uint32) vt10x.Glyph {
	g := vt10x.Glyph{FG: vt10x.Color(id), BG: vt10x.DefaultBG}
	if id == 0 {
		g.FG = vt10x.DefaultFG
	}
	return g
}

// appendVTPen appends the SGR that gives vt10x pen id, in the shortest
// form that stores that number (vt10x parses per byte).
func appendVTPen(b []byte, id uint32) []byte {
	switch {
	case id == 0:
		return append(b, "\x1b[39m"...)
	case id < 8:
		return append(b, '\x1b', '[', '3', byte('0'+id), 'm')
	case id < 256:
		b = append(b, "\x1b[38;5;"...)
		b = appendInt(b, int(id))
		return append(b, 'm')
	}
	b = append(b, "\x1b[38;2;"...)
	b = appendInt(b, int(id>>16))
	b = append(b, ';')
	b = appendInt(b, int(id>>8&0xff))
	b = append(b, ';')
	b = appendInt(b, int(id&0xff))
	return append(b, 'm')
}

// internPen interns st, sweeping the table first when it is full.
func (s *Screen) internPen(st style) uint32 {
	if st != (style{}) && s.pens.full() {
		if _, ok := s.pens.ids[st]; !ok {
			s.sweep()
		}
	}
	return s.pens.intern(st)
}

// penChanged takes the filter's pen after an SGR or OSC 8.
func (s *Screen) penChanged() {
	s.printPen = s.internPen(s.f.st.pen)
	s.erasePenID = -1
}

// erasePen returns the id of the pen erase operations use.
func (s *Screen) erasePen() uint32 {
	if s.erasePenID < 0 {
		e := &s.pens.pens[s.printPen]
		if e.erase < 0 {
			id := s.internPen(style{bg: e.st.bg, cleared: !e.st.bg.IsDefault()})
			e = &s.pens.pens[s.printPen] // the sweep may have moved the table
			e.erase = int32(id)
		}
		s.erasePenID = e.erase
	}
	return uint32(s.erasePenID)
}

// toVT makes vt10x's pen id, appending an SGR only when it holds another.
func (s *Screen) toVT(id uint32) {
	if s.vtPen != int64(id) {
		s.pending = appendVTPen(s.pending, id)
		s.vtPen = int64(id)
	}
}

// fillScrolled gives the line a scroll just brought in at the cursor row
// the erase pen: vt10x blanks it in the default colours. whole is false
// when a character was already printed on it (auto-wrap): from the cursor
// on.
func (s *Screen) fillScrolled(whole bool) {
	if s.erasePen() == 0 {
		return
	}
	s.toVT(s.erasePen())
	if whole {
		s.pending = append(s.pending, "\x1b[2K"...)
	} else {
		s.pending = append(s.pending, "\x1b[K"...)
	}
}

// sweep frees the pen ids no cell and no pen in use refers to.
func (s *Screen) sweep() {
	s.flush() // pending text may use ids not yet stored in cells
	s.epoch++ // a freed id may come back with another style
	t := &s.pens
	if cap(t.marks) < len(t.pens) {
		t.marks = make([]bool, len(t.pens))
	}
	marks := t.marks[:len(t.pens)]
	clear(marks)
	mark := func(id uint32) {
		if int(id) < len(marks) {
			marks[id] = true
		}
	}
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			mark(glyphPen(s.term.Cell(x, y)))
		}
	}
	for _, id := range s.altPins {
		mark(id)
	}
	if s.inBulk {
		for _, g := range s.bulkRow {
			mark(glyphPen(g))
		}
		for _, id := range s.tailPens {
			mark(id)
		}
	}
	mark(0)
	mark(s.printPen)
	if s.erasePenID >= 0 {
		mark(uint32(s.erasePenID))
	}
	if s.vtPen >= 0 {
		mark(uint32(s.vtPen))
	}
	for id := range t.pens {
		e := &t.pens[id]
		e.erase = -1
		if e.live && !marks[id] {
			delete(t.ids, e.st)
			*e = penEntry{}
			t.free = append(t.free, uint32(id))
		}
	}
	s.erasePenID = -1
	t.recent = [penRecentSlots]recentPen{} // it may name ids just freed
	// It names ids by number. Dropped, not cleared: a cleared map keeps
	// its buckets, up to 4096 entries' worth, some 320 KB a pane.
	s.penCache = nil
	s.penRecent = [len(s.penRecent)]penMemo{}
	// In use are at most two ids per cell of both screens and a few pens:
	// a limit of twice that keeps sweeps rare.
	t.limit = max(minPenLimit, 4*s.cols*s.rows+64)
}

// pinScreen records the pen ids the screen's cells use, before the
// alternate screen hides it from sweeps; unpinScreen drops them when the
// main screen is back.
func (s *Screen) pinScreen() {
	s.flush()
	if s.term.Mode()&vt10x.ModeAltScreen != 0 {
		return // a redundant 1049 entry: the main screen is pinned already
	}
	s.altPins, s.altRunes = s.altPins[:0], s.altRunes[:0]
	s.altMain, s.altMainCols = s.altMain[:0], s.cols
	last := uint32(0)
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			g := s.term.Cell(x, y)
			s.altMain = append(s.altMain, g) // for keyframes (keyframe.go)
			if id := glyphPen(g); id != last && id != 0 {
				s.altPins = append(s.altPins, id)
				last = id
			}
			if isStandIn(g.Char) {
				s.altRunes = append(s.altRunes, g.Char)
			}
		}
	}
}

func (s *Screen) unpinScreen() {
	s.altPins, s.altRunes, s.altMain = s.altPins[:0], s.altRunes[:0], s.altMain[:0]
	s.altFlowed = false
}

// cellStyle is the style cellOf gives a glyph drawn with pen id.
func (s *Screen) cellStyle(id uint32) style {
	if id == 0 || int(id) >= len(s.pens.pens) {
		return style{}
	}
	st := s.pens.pens[id].st
	st.cleared = false // cells never carry it
	return st
}

// cellOf converts a stored vt10x glyph.
func (s *Screen) cellOf(g vt10x.Glyph) Cell {
	if g.FG >= 1<<24 && g.Char > 0 && g.Char < standInBase {
		return Cell{Rune: g.Char} // the common case, kept cheap
	}
	c := Cell{Rune: g.Char}
	if isStandIn(c.Rune) {
		c.Rune, c.Text = s.clusters.lookup(c.Rune)
	}
	if id := glyphPen(g); id != 0 && int(id) < len(s.pens.pens) {
		st := &s.pens.pens[id].st
		c.FG, c.BG, c.UL, c.Attrs, c.Under, c.Link = st.fg, st.bg, st.ul, st.attrs, st.under, st.link
	}
	if c.Rune == 0 {
		c.Rune = ' '
	}
	return c
}
