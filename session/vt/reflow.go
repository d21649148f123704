package vt

// Reflow, as tmux's grid_reflow does it. On a width change of the main
// screen, the scrollback and the screen are read as one sequence of
// logical lines (rows joined while a row's auto-wrap mark says it goes
// on) and wrapped again at the new width. The screen shows the last rows
// of the result, its height unchanged, so narrowing pushes lines into the
// scrollback and widening pulls them back; the cursor stays on the same
// character of its logical line, or goes to the top left corner when
// that line left the screen (tmux does the same).
//
// A row's content is its cells up to the last that shows something; a
// row that wrapped is whole, but for the blank that filled the last
// column when a wide character wrapped (the next row starts with it).
// Wide characters and clusters are one unit each: a row never ends
// between the halves of a wide one, which goes to the next row whole.
//
// Scrollback lines that are not part of a wrapped line and fit the new
// width pass through as they are, so a resize costs a copy of the ring's
// headers plus the work on wrapped and too-long lines.

// flowRow is a row of a reflow's output: a scrollback line passed
// through, or cells.
type flowRow struct {
	sb      *sbLine
	cells   []Cell
	wrapped bool
}

// reflower rewraps rows fed in order at cols, keeping the last keep of
// them in a ring (the new screen) and giving the rest to out.
type reflower struct {
	cols int
	keep int
	out  *scrollback

	line    []Cell // the logical line being gathered
	pending bool   // line holds rows (the last fed wrapped)
	curOff  int    // the cursor's offset in line, -1 when not in it

	ring  []flowRow
	head  int // oldest of ring once full
	n     int // rows emitted so far
	curAt int // output row of the cursor, -1 while unknown
	curX  int
}

func newReflower(cols, keep int, out *scrollback) *reflower {
	return &reflower{cols: cols, keep: keep, out: out, curOff: -1, curAt: -1}
}

// passLine feeds scrollback line l; it passes through unchanged when it
// is a logical line of its own that fits.
func (r *reflower) passLine(l *sbLine, buf []Cell) []Cell {
	if !r.pending && !l.wrapped && l.width() <= r.cols {
		r.emit(flowRow{sb: l})
		return buf
	}
	w := l.width()
	if cap(buf) < w {
		buf = make([]Cell, w)
	}
	buf = buf[:w]
	l.cells(r.out.styles, buf)
	r.feed(buf, l.wrapped, -1)
	return buf
}

// feed adds a row's content; cursor is the cursor's column in it, or -1.
func (r *reflower) feed(cells []Cell, wrapped bool, cursor int) {
	if r.pending && len(r.line) > 0 && r.line[len(r.line)-1].Flags&FlagPad != 0 {
		// The blank that filled the last column before a wide
		// character wrapped: no part of the text.
		r.line = r.line[:len(r.line)-1]
		r.curOff = min(r.curOff, len(r.line))
	}
	if cursor >= 0 {
		r.curOff = len(r.line) + cursor
	}
	from := len(r.line)
	r.line = append(r.line, cells...)
	for i := from; i < len(r.line)-1; i++ {
		// A pad is a pad only at the end of a row that wrapped.
		r.line[i].Flags &^= FlagPad
	}
	r.pending = wrapped
	if !wrapped {
		r.split()
	}
}

// finish ends the last logical line, whether or not its last row wrapped.
func (r *reflower) finish() {
	if r.pending {
		r.split()
	}
}

// split wraps the gathered logical line at r.cols and emits its rows.
func (r *reflower) split() {
	line := r.line
	start := 0
	for {
		end, w := start, 0
		for end < len(line) {
			cw := 1
			if line[end].Flags&FlagWide != 0 && end+1 < len(line) {
				cw = 2
			}
			if w+cw > r.cols {
				break
			}
			w, end = w+cw, end+cw
		}
		if end == start && end < len(line) {
			// A wide character wider than the screen: a blank
			// stands for it.
			line[end].Flags, line[end].Rune, line[end].Text = 0, ' ', ""
			line = append(line[:end+1], line[end+2:]...)
			continue
		}
		last := end >= len(line)
		if r.curOff >= 0 && r.curOff >= start && (r.curOff < end || last) {
			r.curAt, r.curX = r.n, r.curOff-start
			r.curOff = -1
		}
		r.emit(flowRow{cells: line[start:end], wrapped: !last})
		if !last && w < r.cols {
			// A wide character that did not fit: the pad fills the
			// column, as when it was printed.
			dst := r.newest()
			dst.cells = append(dst.cells, Cell{Rune: ' ', Flags: FlagPad})
		}
		if last {
			break
		}
		start = end
	}
	r.line, r.pending = r.line[:0], false
}

// emit adds an output row: to the ring, whose oldest row, once the ring
// is full, goes to the scrollback.
func (r *reflower) emit(row flowRow) {
	r.n++
	var dst *flowRow
	if len(r.ring) < r.keep {
		r.ring = append(r.ring, flowRow{})
		dst = &r.ring[len(r.ring)-1]
	} else {
		dst = &r.ring[r.head]
		if dst.sb != nil {
			r.out.pushCopy(dst.sb)
		} else {
			r.out.push(dst.cells, dst.wrapped)
		}
		r.head = (r.head + 1) % len(r.ring)
	}
	dst.sb, dst.wrapped = row.sb, row.wrapped
	dst.cells = append(dst.cells[:0], row.cells...)
}

// newest returns the row emitted last.
func (r *reflower) newest() *flowRow {
	if len(r.ring) < r.keep || r.head == 0 {
		return &r.ring[len(r.ring)-1]
	}
	return &r.ring[r.head-1]
}

// rows returns the ring oldest first; the first is output row n-len.
func (r *reflower) rows() []flowRow {
	out := make([]flowRow, 0, len(r.ring))
	out = append(out, r.ring[r.head:]...)
	return append(out, r.ring[:r.head]...)
}

// width is how many cells line l holds, the blanks a wrapped line took
// included.
func (l *sbLine) width() int {
	n := 0
	for it := l.runs(); it.next(); {
		n += int(it.n)
	}
	return max(n, int(l.span))
}

// pushCopy appends line l as it is.
func (b *scrollback) pushCopy(l *sbLine) {
	if b.max == 0 {
		return
	}
	*b.slot() = *l
}
