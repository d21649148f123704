package vt

// styleTable interns the styles of the scrollback's runs: a run names its
// style by a 4-byte id instead of holding its 20 bytes. A coloured log's
// line holds some 8 runs, and 2000 such lines in each of 48 panes held
// 12 MB of styles that repeat a handful of pens.
//
// It grows with every style a line was written in; compact (at a point
// where one scrollback alone uses it) keeps only those some line still
// names, so it is bounded by the scrollback's runs.
type styleTable struct {
	list  []style
	ids   map[style]uint32
	limit int // past this many styles, compact at the next chance
	// byPen holds the id of each pen's style, by pen id, for the lines
	// written from vt10x's glyphs (pens are reused: the style checks):
	// looking each run's style up in ids cost a tenth of a coloured
	// parse. The lines made from cells (wide runes, clusters) are rare
	// enough to look up.
	byPen []sbCached
}

type sbCached struct {
	st style
	id uint32
	ok bool
}

// internPen is intern for the style of pen id, which is st.
func (t *styleTable) internPen(pen uint32, st style) uint32 {
	if int(pen) < len(t.byPen) {
		if e := &t.byPen[pen]; e.ok && e.st == st {
			return e.id
		}
	} else if pen < 1<<16 {
		t.byPen = append(t.byPen, make([]sbCached, int(pen)+1-len(t.byPen))...)
	} else {
		return t.intern(st)
	}
	id := t.intern(st)
	t.byPen[pen] = sbCached{st, id, true}
	return id
}

// minStyleLimit is the table's size below which it is never compacted:
// a scan of the scrollback's runs for a few KiB is not worth it.
const minStyleLimit = 1024

// intern returns st's id, adding it if new.
func (t *styleTable) intern(st style) uint32 {
	if id, ok := t.ids[st]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = make(map[style]uint32)
	}
	id := uint32(len(t.list))
	t.list = append(t.list, st)
	t.ids[st] = id
	return id
}

// style is the style of id.
func (t *styleTable) style(id uint32) style { return t.list[id] }

// table is the scrollback's style table, made at its first use.
func (b *scrollback) table() *styleTable {
	if b.styles == nil {
		b.styles = &styleTable{}
	}
	return b.styles
}

// compactStyles drops the styles no line of b names any more, once the
// table outgrew its limit. Only while b is the table's one user: lines
// of another scrollback sharing it (a reflow's) would keep stale ids.
func (b *scrollback) compactStyles() {
	if t := b.styles; t != nil && len(t.list) > max(t.limit, minStyleLimit) {
		b.compact()
	}
}

// compact keeps only the styles some line of b names, now.
func (b *scrollback) compact() {
	t := b.styles
	if t == nil {
		return
	}
	var next styleTable
	rename := func(id uint32) uint32 { return next.intern(t.list[id]) }
	var scratch []sbRun
	for k := range b.cold {
		// Every line of the block, those dropped from cold[0] too: the
		// block is packed again whole.
		lines := b.cold[k].unpack()
		for i := range lines {
			scratch = lines[i].remap(rename, scratch)
		}
		pairs := b.cold[k].pairs // the texts stay as they were
		b.cold[k] = packBlock(lines)
		b.cold[k].pairs = pairs
	}
	b.cache = sbCache{}
	for i := range b.hot {
		scratch = b.hot[i].remap(rename, scratch)
	}
	next.limit = 2 * len(next.list)
	*t = next
}
