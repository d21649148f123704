package vt

// Hyperlinks (OSC 8). A link is part of the pen (style.link, an id into
// the filter's link table), so cells keep it as they keep colours, and the
// renderer opens and closes it around the cells that carry it. The table
// is bounded: when it is full, ids no pen and no scrollback line uses are
// forgotten; when every id is in use, a new link is dropped (its text
// still shows), never a link already on screen rewritten.

const (
	maxLinks   = 1024
	maxLinkLen = 2048
)

type linkTable struct {
	urls  []string // by id; id 0 is "no link", "" marks a free id
	ids   map[string]uint16
	free  []uint16
	marks []bool
	// roots marks the ids in use outside the filter (the Screen's pens
	// and scrollback); nil in tests of the filter alone.
	roots func(mark func(id uint16))
}

// setLink handles OSC 8 ; params ; URI. An empty URI ends the link. The
// params and URI are kept as written when they are printable ASCII (as
// URIs are), so the renderer can hand them on without ever passing a
// control character to the outer terminal; anything else is dropped.
func (f *filter) setLink(rest []byte) {
	id := uint16(0)
	if i := indexByte(rest, ';'); i >= 0 && i+1 < len(rest) && len(rest) <= maxLinkLen && printableASCII(rest) {
		id = f.links.intern(string(rest), f)
	}
	if id == f.st.pen.link {
		return
	}
	f.st.pen.link = id
	f.out.seq(opPen, 0, nil)
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// intern returns the id of link "params;URI", 0 when the table is full of
// links in use.
func (t *linkTable) intern(s string, f *filter) uint16 {
	if t.ids == nil {
		t.ids = map[string]uint16{}
		t.urls = []string{""}
	}
	if id, ok := t.ids[s]; ok {
		return id
	}
	if len(t.free) == 0 && len(t.urls) >= maxLinks {
		t.sweep(f)
	}
	var id uint16
	switch n := len(t.free); {
	case n > 0:
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.urls[id] = s
	case len(t.urls) < maxLinks:
		id = uint16(len(t.urls))
		t.urls = append(t.urls, s)
	default:
		return 0
	}
	t.ids[s] = id
	return id
}

// sweep frees the ids that neither the filter's pens nor the roots use.
func (t *linkTable) sweep(f *filter) {
	if cap(t.marks) < len(t.urls) {
		t.marks = make([]bool, len(t.urls))
	}
	marks := t.marks[:len(t.urls)]
	clear(marks)
	mark := func(id uint16) {
		if int(id) < len(marks) {
			marks[id] = true
		}
	}
	mark(f.st.pen.link)
	mark(f.st.saved.pen.link)
	if t.roots != nil {
		t.roots(mark)
	}
	for id := 1; id < len(t.urls); id++ {
		if !marks[id] && t.urls[id] != "" {
			delete(t.ids, t.urls[id])
			t.urls[id] = ""
			t.free = append(t.free, uint16(id))
		}
	}
}

// linkRoots marks the link ids the Screen's pens and scrollback use.
func (s *Screen) linkRoots(mark func(id uint16)) {
	s.sweep() // pens no cell uses would keep their links
	for i := range s.pens.pens {
		if e := &s.pens.pens[i]; e.live {
			mark(e.st.link)
		}
	}
	// The styles no line names any more go first: a link only they
	// name is free. (Links are collected while output is parsed, never
	// during a reflow, so the scrollback is the table's one user.)
	s.sb.compact()
	if t := s.sb.styles; t != nil {
		for _, st := range t.list {
			mark(st.link)
		}
	}
	// s.sweep emptied the pen cache, whose styles may name links.
}
