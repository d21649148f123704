package vt

import "unicode/utf8"

// Grapheme clusters. vt10x holds one rune per cell, so a character written
// as several code points (a base and its combining marks, an emoji ZWJ
// sequence, an emoji with VS16, a flag) is interned here and vt10x gets a
// stand-in rune from the supplementary private-use planes (15 and 16);
// Snapshot maps stand-ins back to the cluster as written, so scrollback,
// search and dumps see the original bytes. Real code points of those
// planes go through the table too, so a stand-in is never ambiguous; the
// private-use area of the BMP (Nerd Font icons) passes as it is.
//
// Which code points join follows tmux and xterm where they agree (widths
// per code point, wcwidth): zero-width code points (marks, ZWJ, variation
// selectors) join the character before them, a pictograph after a ZWJ
// joins the sequence (tmux), a second regional indicator joins the first
// (a flag, two columns). VS16 does not widen a narrow character: xterm
// and tmux 3.3 keep it narrow, and so do the programs drawing with
// wcwidth (vim positions the next character one column on; see the replay
// corpus). Render leaves VS16 out of such a narrow cell, so an outer
// terminal or layout that would widen it cannot shift the row; the text
// keeps it.
//
// The table is bounded and forgets stand-ins no cell uses: a sweep marks
// the stand-ins of the visible cells, of the main screen while the
// alternate one hides it, and of the last printed character, and frees
// the rest.

const (
	standInBase   = 0xF0000
	standInCount  = 0x110000 - standInBase
	minClusters   = 4096
	maxClusterLen = 64 // bytes; further marks (Zalgo text) are dropped
)

// isStandIn reports whether vt10x's rune r is a stand-in.
func isStandIn(r rune) bool { return r >= standInBase }

type clusterTable struct {
	texts []string // by index = rune - standInBase; "" marks a free slot
	ids   map[string]rune
	free  []rune
	limit int
	marks []bool
}

func (t *clusterTable) init() {
	t.ids = map[string]rune{}
	t.limit = minClusters
}

// lookup returns the cluster's first code point and, when it has more
// than one, its text.
func (t *clusterTable) lookup(r rune) (rune, string) {
	i := int(r - standInBase)
	if i >= len(t.texts) || t.texts[i] == "" {
		return ' ', "" // never produced: a stand-in is only ever handed out here
	}
	s := t.texts[i]
	first, n := utf8.DecodeRuneInString(s)
	if n == len(s) {
		return first, ""
	}
	return first, s
}

func (t *clusterTable) full() bool {
	return len(t.free) == 0 && len(t.texts) >= min(t.limit, standInCount)
}

// intern returns the stand-in of text, or false when every stand-in is
// in use (the caller sweeps first when full).
func (t *clusterTable) intern(text []byte) (rune, bool) {
	if r, ok := t.ids[string(text)]; ok {
		return r, true
	}
	s := string(text)
	var r rune
	switch n := len(t.free); {
	case n > 0:
		r = t.free[n-1]
		t.free = t.free[:n-1]
		t.texts[r-standInBase] = s
	case len(t.texts) < standInCount:
		r = standInBase + rune(len(t.texts))
		t.texts = append(t.texts, s)
	default:
		return 0, false
	}
	t.ids[s] = r
	return r, true
}

// internCluster interns text, sweeping first when the table is full.
func (s *Screen) internCluster(text []byte) (rune, bool) {
	if _, ok := s.clusters.ids[string(text)]; !ok && s.clusters.full() {
		s.sweepClusters()
	}
	return s.clusters.intern(text)
}

// sweepClusters frees the stand-ins no cell refers to.
func (s *Screen) sweepClusters() {
	s.flush()
	s.epoch++ // a freed stand-in may come back as another cluster
	t := &s.clusters
	if cap(t.marks) < len(t.texts) {
		t.marks = make([]bool, len(t.texts))
	}
	marks := t.marks[:len(t.texts)]
	clear(marks)
	mark := func(r rune) {
		if i := int(r - standInBase); r >= standInBase && i < len(marks) {
			marks[i] = true
		}
	}
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			mark(s.term.Cell(x, y).Char)
		}
	}
	for _, r := range s.altRunes {
		mark(r)
	}
	if s.last.ok {
		mark(s.last.r)
	}
	for i, text := range t.texts {
		if !marks[i] && text != "" {
			delete(t.ids, text)
			t.texts[i] = ""
			t.free = append(t.free, standInBase+rune(i))
		}
	}
	// At most one stand-in per cell of both screens is in use.
	t.limit = max(minClusters, 4*s.cols*s.rows+64)
}

// lastText appends the text of the last printed character to b.
func (s *Screen) lastText(b []byte) []byte {
	if isStandIn(s.last.r) {
		first, text := s.clusters.lookup(s.last.r)
		if text == "" {
			return utf8.AppendRune(b, first)
		}
		return append(b, text...)
	}
	return utf8.AppendRune(b, s.last.r)
}

// joins reports whether r continues the cluster printed last rather than
// starting a cell of its own.
func (s *Screen) joins(r rune, w int) bool {
	if !s.last.ok {
		return false
	}
	switch {
	case w == 0:
		return true
	case s.last.zwj:
		return pictograph(r)
	case isRegional(r):
		return s.last.regional && s.last.x+1 < s.cols
	}
	return false
}

// extend adds r to the cluster printed last and prints the cluster again
// over it: the cursor ends just after it, as it was (or two columns on,
// when VS16 or a flag makes it wide).
func (s *Screen) extend(r rune) {
	b := utf8.AppendRune(s.lastText(s.clBuf[:0]), r)
	s.clBuf = b
	if len(b) > maxClusterLen {
		return
	}
	w := s.last.w
	widen := w == 1 && isRegional(r) && s.last.regional
	if widen {
		if s.last.x+1 >= s.cols {
			return // joins tests for room: never reached
		}
		w = 2
	}
	stand, ok := s.internCluster(b)
	if !ok {
		return // every stand-in is on screen: the mark is dropped
	}
	s.loadCursor()
	s.toVT(s.last.pen)
	s.pending = append(s.pending, "\x1b["...)
	s.pending = appendInt(s.pending, s.last.x+1)
	s.pending = append(s.pending, 'G')
	s.pending = utf8.AppendRune(s.pending, stand)
	if w == 2 {
		s.pending = utf8.AppendRune(s.pending, placeholder)
	}
	if widen {
		s.cur.x, s.cur.wrap = s.last.x, false
		s.advance()
		s.advance()
	}
	s.last.r, s.last.w = stand, w
	s.last.zwj = r == 0x200d
	s.last.regional = false // a flag is two indicators, no more
}

// pictograph approximates Extended_Pictographic: the emoji planes and the
// symbol blocks whose characters take emoji presentation.
func pictograph(r rune) bool {
	return r >= 0x1f000 && r <= 0x1faff || r >= 0x2600 && r <= 0x27bf ||
		r >= 0x2190 && r <= 0x21ff || r >= 0x2b00 && r <= 0x2bff ||
		r == 0x203c || r == 0x2049 || r == 0x2122 || r == 0x2139 ||
		r >= 0x2300 && r <= 0x23ff || r == 0x24c2 || r >= 0x25a0 && r <= 0x25ff ||
		r == 0x3030 || r == 0x303d || r == 0x3297 || r == 0x3299 || r == 0xa9 || r == 0xae
}

func isRegional(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// clusterWidth is the width of a cluster as extend gives it.
func clusterWidth(text string) int {
	first, n := utf8.DecodeRuneInString(text)
	if isRegional(first) {
		if r, _ := utf8.DecodeRuneInString(text[n:]); isRegional(r) {
			return 2
		}
	}
	return runeWidth(first)
}

// cellWidth is how many columns cell c takes.
func cellWidth(c *Cell) int {
	if c.Text != "" {
		return clusterWidth(c.Text)
	}
	return runeWidth(c.Rune)
}

// String returns what the cell shows: its cluster as written, its rune,
// or a space for a blank.
func (c *Cell) String() string {
	if c.Text != "" {
		return c.Text
	}
	if c.Rune == 0 {
		return " "
	}
	return string(c.Rune)
}
