package vt

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Search over a screen's scrollback and rows. Each line is searched as its
// text: the cells' runes in order, a cluster as written, nothing for the
// right half of a wide rune, trailing blanks trimmed. Scrollback lines
// already hold that text (sbLine.text), except special ones (wide runes,
// clusters), whose search text is built once and cached. Under the lock a
// search only copies string headers (strings are immutable) and builds the
// screen rows' text; the matching runs after it is released.

// Match is one line holding a match.
type Match struct {
	// Line is the line's index in scrollback + screen when the search ran:
	// 0 is the oldest scrollback line, Scrollback+y the screen's row y
	// (as SnapshotRange counts).
	Line int
	// Col is the first cell of the match, Cols how many cells it covers.
	Col, Cols int
	// Excerpt is the line's text around the match, as the child wrote it:
	// escape it (termsafe) before printing. The match is Excerpt[Start:End].
	Excerpt    string
	Start, End int
	// Scrollback is how many lines the scrollback held then.
	Scrollback int
}

// findLine is the search text of a special line, and for each of its
// runes the cell it belongs to.
type findLine struct {
	text  string
	mask  uint64
	cols  []int32
	cells int32
}

// searchLines is what a search copies under the lock: every line's text,
// oldest first, and the special lines' cell maps by line index.
type searchLines struct {
	texts    []string
	masks    []uint64  // each text's lineMask
	specials []special // by line, ascending
	sbLen    int
	// The screen rows: where each one's text ends, and its cell map in
	// rowCols (from -1: one rune per cell).
	rows    []rowText
	rowCols []int32
}

type rowText struct{ end, from, to, cells int }

type special struct {
	line int
	fl   *findLine
}

var linesPool = sync.Pool{New: func() any { return new(searchLines) }}

// maxExcerpt bounds an excerpt's bytes; excerptBefore is how much of the
// line before the match it keeps.
const (
	maxExcerpt    = 200
	excerptBefore = 48
)

// Search appends to dst the first match of each line holding one, newest
// line first (the screen's bottom row, up to the oldest scrollback line),
// at most limit of them (limit <= 0: no bound).
func (s *Screen) Search(m *Matcher, limit int, dst []Match) []Match {
	ls := s.copyLines(m)
	defer ls.release()
	n := 0
	for i := len(ls.texts) - 1; i >= 0 && (limit <= 0 || n < limit); i-- {
		if ls.masks[i]&m.need != m.need {
			continue
		}
		if a, b := m.Index(ls.texts[i]); a >= 0 {
			dst = append(dst, ls.match(i, a, b))
			n++
		}
	}
	return dst
}

// SearchFrom finds the first line holding a match among lines start,
// start+dir, … (dir -1: older, 1: newer) of scrollback + screen.
func (s *Screen) SearchFrom(m *Matcher, start, dir int) (Match, bool) {
	if dir == 0 {
		return Match{}, false
	}
	ls := s.copyLines(m)
	defer ls.release()
	for i := start; i >= 0 && i < len(ls.texts); i += dir {
		if ls.masks[i]&m.need != m.need {
			continue
		}
		if a, b := m.Index(ls.texts[i]); a >= 0 {
			return ls.match(i, a, b), true
		}
	}
	return Match{}, false
}

// copyLines takes the text of every line under the lock; that of a
// cold block that cannot hold m is left empty.
func (s *Screen) copyLines(m *Matcher) *searchLines {
	ls := linesPool.Get().(*searchLines)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	b := &s.sb
	ls.sbLen = b.len()
	ls.texts = slices.Grow(ls.texts[:0], b.len()+s.rows)
	ls.masks = slices.Grow(ls.masks[:0], b.len()+s.rows)
	ls.copyScrollback(b, m)
	s.copyRows(ls)
	return ls
}

// copyScrollback appends the text of the scrollback's lines, oldest
// first: each cold block unpacked once, or left out, its lines empty
// texts, when it lacks a byte pair every match of m holds.
func (ls *searchLines) copyScrollback(b *scrollback, m *Matcher) {
	for k := range b.finds {
		if k < b.dropped {
			delete(b.finds, k) // its line is gone
		}
	}
	skip := m != nil && m.blockNeed != nil
	for i, c := 0, b.coldLen(); i < b.len(); i++ {
		// At the first line of each cold block here (the first of all
		// may be past the block's start, its older lines dropped).
		if j := i + b.skip; skip && i < c && (i == 0 || j%sbBlockLines == 0) &&
			!b.pairsOf(j/sbBlockLines).holds(m.blockNeed) {
			n := min(sbBlockLines-j%sbBlockLines, c-i)
			for range n {
				ls.texts, ls.masks = append(ls.texts, ""), append(ls.masks, 0)
			}
			i += n - 1
			continue
		}
		l := b.line(i)
		if !l.special {
			// Its mask made here, not as it scrolled off: most lines
			// are never searched, and a cold block's are read only
			// when its pairs pass.
			ls.texts, ls.masks = append(ls.texts, l.text()), append(ls.masks, lineMask(l.text()))
			continue
		}
		at := b.dropped + int64(i)
		fl := b.finds[at]
		if fl == nil {
			fl = l.findText()
			if b.finds == nil {
				b.finds = map[int64]*findLine{}
			}
			b.finds[at] = fl
		}
		ls.specials = append(ls.specials, special{len(ls.texts), fl})
		ls.texts, ls.masks = append(ls.texts, fl.text), append(ls.masks, fl.mask)
	}
	// The last block read stays unpacked only while a scrolled-back view
	// reads it frame after frame; a search reads them all once.
	b.cache = sbCache{}
}

// copyRows appends the screen rows' search text: one string for all of
// them (one allocation), each row a slice of it.
func (s *Screen) copyRows(ls *searchLines) {
	if cap(s.rowBuf) < s.cols {
		s.rowBuf = make([]Cell, s.cols)
	}
	row := s.rowBuf[:s.cols]
	var all strings.Builder
	all.Grow(s.rows * s.cols)
	ls.rows, ls.rowCols = ls.rows[:0], ls.rowCols[:0]
	for y := range s.rows {
		s.readRowInto(y, row)
		r := rowText{from: len(ls.rowCols)}
		var wide bool
		ls.rowCols, r.cells, wide = appendRowText(&all, ls.rowCols, row)
		r.end, r.to = all.Len(), len(ls.rowCols)
		if !wide {
			ls.rowCols, r.from = ls.rowCols[:r.from], -1
		}
		ls.rows = append(ls.rows, r)
	}
	text := all.String()
	start := 0
	for y, r := range ls.rows {
		line := text[start:r.end]
		ls.texts, ls.masks = append(ls.texts, line), append(ls.masks, lineMask(line))
		if r.from >= 0 {
			fl := &findLine{text: line, cols: ls.rowCols[r.from:r.to:r.to], cells: int32(r.cells)}
			ls.specials = append(ls.specials, special{ls.sbLen + y, fl})
		}
		start = r.end
	}
}

// appendRowText writes a row's search text and appends each rune's cell
// to cols; it returns how many cells it took (trailing blanks are not)
// and whether the row is special (a wide rune or a cluster), so that
// cols is needed to map bytes to cells.
func appendRowText(b *strings.Builder, cols []int32, row []Cell) (_ []int32, cells int, wide bool) {
	end := len(row)
	for end > 0 && (row[end-1].Rune == ' ' || row[end-1].Rune == 0) && row[end-1].Flags&^FlagPad == 0 && row[end-1].Text == "" {
		end--
	}
	for x := range end {
		c := &row[x]
		switch {
		case c.Flags&FlagPlaceholder != 0:
			wide = true
		case c.Text != "":
			wide = true
			b.WriteString(c.Text)
			for range utf8.RuneCountInString(c.Text) {
				cols = append(cols, int32(x))
			}
		default:
			r := c.Rune
			if r == 0 {
				r = ' '
			}
			b.WriteRune(r)
			cols = append(cols, int32(x))
		}
	}
	return cols, end, wide
}

// findText builds a special scrollback line's search text.
func (l *sbLine) findText() *findLine {
	var b strings.Builder
	text, clusters := l.text(), l.clusterList()
	cols := make([]int32, 0, len(text))
	x, ci := 0, 0
	for _, r := range text { // one rune per cell
		switch {
		case r == placeholder:
		case r == padRune:
			b.WriteByte(' ')
			cols = append(cols, int32(x))
		case ci < len(clusters) && int(clusters[ci].x) == x:
			t := clusters[ci].text
			ci++
			b.WriteString(t)
			for range utf8.RuneCountInString(t) {
				cols = append(cols, int32(x))
			}
		default:
			b.WriteRune(r)
			cols = append(cols, int32(x))
		}
		x++
	}
	t := b.String()
	return &findLine{text: t, mask: lineMask(t), cols: cols, cells: int32(x)}
}

func (ls *searchLines) release() {
	clear(ls.texts) // let the lines' text go
	clear(ls.specials)
	ls.texts, ls.specials, ls.masks = ls.texts[:0], ls.specials[:0], ls.masks[:0]
	linesPool.Put(ls)
}

// match describes the match at bytes [a, b) of line i.
func (ls *searchLines) match(i, a, b int) Match {
	text := ls.texts[i]
	m := Match{Line: i, Scrollback: ls.sbLen}
	k := sort.Search(len(ls.specials), func(j int) bool { return ls.specials[j].line >= i })
	if k < len(ls.specials) && ls.specials[k].line == i {
		m.Col, m.Cols = ls.specials[k].fl.span(a, b)
	} else {
		// One rune per cell.
		m.Col = utf8.RuneCountInString(text[:a])
		m.Cols = utf8.RuneCountInString(text[a:b])
	}
	m.Excerpt, m.Start, m.End = excerpt(text, a, b)
	if i >= ls.sbLen {
		m.Excerpt = strings.Clone(m.Excerpt) // the rows' text is one string: keep only this
	}
	return m
}

// span maps the bytes [a, b) of the line's text to its cells.
func (fl *findLine) span(a, b int) (col, cols int) {
	ra := utf8.RuneCountInString(fl.text[:a])
	col = int(fl.cells)
	if ra < len(fl.cols) {
		col = int(fl.cols[ra])
	}
	if b == a {
		return col, 0
	}
	last := ra + utf8.RuneCountInString(fl.text[a:b]) - 1
	end := int(fl.cells)
	for j := last + 1; j < len(fl.cols); j++ {
		if fl.cols[j] != fl.cols[last] {
			end = int(fl.cols[j])
			break
		}
	}
	return col, end - col
}

// excerpt cuts text around [a, b) to at most maxExcerpt bytes, on rune
// boundaries, and returns the match's bytes in it.
func excerpt(text string, a, b int) (string, int, int) {
	from := max(0, a-excerptBefore)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	to := min(len(text), max(b, from+maxExcerpt))
	if to-from > maxExcerpt {
		to = from + maxExcerpt
	}
	for to < len(text) && to > from && !utf8.RuneStart(text[to]) {
		to--
	}
	return text[from:to], a - from, min(b, to) - from
}

// Span is a run of cells of one row.
type Span struct{ Col, Cols int }

// RowMatches appends every match in row, a frame's row, to dst, finding
// them in the text a search sees: for highlighting what Search found.
func (m *Matcher) RowMatches(row []Cell, dst []Span) []Span {
	var b strings.Builder
	cols, cells, _ := appendRowText(&b, nil, row)
	fl := findLine{text: b.String(), cols: cols, cells: int32(cells)}
	add := func(a, e int) {
		if col, n := fl.span(a, e); n > 0 {
			dst = append(dst, Span{col, n})
		}
	}
	if m.re != nil {
		for _, loc := range m.re.FindAllStringIndex(fl.text, -1) {
			add(loc[0], loc[1])
		}
		return dst
	}
	for off := 0; off < len(fl.text); {
		a, e := m.Index(fl.text[off:])
		if a < 0 {
			break
		}
		add(off+a, off+e)
		off += e // a plain query is never empty
	}
	return dst
}
