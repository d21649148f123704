package vt

import (
	"slices"

	"github.com/hinshun/vt10x"
)

// Cursor is where the child's cursor is and how it looks.
type Cursor struct {
	X, Y    int
	Visible bool // shown by the child and inside the frame
	Shape   CursorShape
	// Color is the colour the child set for the cursor (OSC 12: an X11
	// name, #rrggbb or rgb:rr/gg/bb, validated), "" for the default.
	Color string
}

// Frame is a copy of the screen, owned by the caller and reused between
// snapshots so that taking one allocates nothing once it has grown. The UI
// may edit its cells (for example toggle AttrReverse to highlight a search
// match) before rendering.
type Frame struct {
	Cols, Rows int
	Cells      []Cell // Rows x Cols, row-major
	Cursor     Cursor
	Modes      Modes
	Title      string
	// Links are the hyperlinks (OSC 8 "params;URI") cells refer to by
	// Cell.Link; Links[0] is "", no link.
	Links []string
	// Scrollback is how many lines the scrollback held; First is the
	// index of the frame's top row in scrollback + screen (First ==
	// Scrollback for the live screen).
	Scrollback int
	First      int
	// Wrapped says which rows continue on the next (auto-wrap), in
	// frames taken with SnapshotRange; RenderJoined joins them.
	Wrapped []bool

	// What the last live snapshot read from vt10x, to tell the rows that
	// changed since (see Snapshot): the raw glyphs, the screen and the
	// side tables' epoch they were read under, and which rows differed.
	raw     []vt10x.Glyph
	src     *Screen
	epoch   uint64
	ver     uint64 // the screen's row version when the frame was taken
	changed []bool
}

// RowChanged reports whether row y may differ from the frame's previous
// snapshot, so a renderer can keep the rows that did not. Every row of a
// frame taken any other way than Snapshot counts as changed.
func (f *Frame) RowChanged(y int) bool { return y >= len(f.changed) || f.changed[y] }

// Invalidate makes the next Snapshot copy every row: for a frame whose
// cells the caller edited (a search highlight).
func (f *Frame) Invalidate() { f.src = nil }

// Row returns row y of the frame.
func (f *Frame) Row(y int) []Cell { return f.Cells[y*f.Cols : (y+1)*f.Cols] }

// Cell returns the cell at column x, row y.
func (f *Frame) Cell(x, y int) Cell { return f.Cells[y*f.Cols+x] }

func (f *Frame) setSize(cols, rows int) {
	f.Cols, f.Rows = cols, rows
	if n := cols * rows; cap(f.Cells) < n {
		f.Cells = make([]Cell, n)
	} else {
		f.Cells = f.Cells[:n]
	}
}

// Snapshot copies the live screen into f. Taken again into the same
// frame, it decodes only the rows whose glyphs changed since, and says
// which (RowChanged): a typed key's echo changes one row of thousands of
// cells, and the frame that shows it should cost one row.
func (s *Screen) Snapshot(f *Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.src != s || f.epoch != s.epoch || f.Cols != s.cols || f.Rows != s.rows || f.First != f.Scrollback {
		// A frame of another screen, size or epoch: read it whole.
		s.flush()
		f.setSize(s.cols, s.rows)
		f.src, f.epoch = s, s.epoch
		f.raw = slices.Grow(f.raw[:0], s.cols*s.rows)[:s.cols*s.rows]
		f.changed = f.changed[:0]
		for y := range s.rows {
			s.readRowRaw(y, f.Row(y), f.raw[y*s.cols:(y+1)*s.cols])
			f.changed = append(f.changed, true)
		}
		f.ver = s.rowVer
		s.frameMeta(f, s.sb.len(), s.rows)
		return
	}
	s.flush()
	// A row that may have changed is compared with the frame's glyphs
	// first, even when every row may have (a flush of bytes no writer
	// classified, such as a TUI's cursor moves and colours): most rows of
	// a redraw are as they were, and a row found the same is neither
	// decoded nor drawn again.
	for y := range s.rows {
		if !s.rowChangedSince(y, f.ver) {
			f.changed[y] = false
			continue
		}
		raw := f.raw[y*s.cols : (y+1)*s.cols]
		same := true
		for x, g := range s.termRow(y)[:len(raw)] {
			if g != raw[x] {
				raw[x], same = g, false
			}
		}
		f.changed[y] = !same
		if !same {
			s.cellsOf(raw, f.Row(y))
		}
	}
	f.ver = s.rowVer
	s.frameMeta(f, s.sb.len(), s.rows)
}

// SnapshotAt copies the view scrolled back by offset lines (0 is the live
// screen; offset is clamped to the scrollback length): the last offset
// lines of the scrollback above the top rows of the screen.
func (s *Screen) SnapshotAt(f *Frame, offset int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	offset = min(max(offset, 0), s.sb.len())
	s.snapshotRange(f, s.sb.len()-offset, s.rows)
}

// SnapshotRange copies n lines starting at line first of scrollback +
// screen (line 0 is the oldest scrollback line; line Scrollback is the
// screen's top row) into f, which gets n rows (clamped to what exists).
// For a full dump: SnapshotRange(f, 0, ScrollbackLen()+rows).
func (s *Screen) SnapshotRange(f *Frame, first, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := s.sb.len() + s.rows
	first = min(max(first, 0), total)
	s.snapshotRange(f, first, min(max(n, 0), total-first))
}

// Dump appends the screen, after the scrollback when scrollback is set, one
// row per line with trailing blanks trimmed and no newline after the last
// row: plain text, or with SGR colours when sgr is set. It is what
// sandmux screen prints.
func (s *Screen) Dump(dst []byte, scrollback, sgr bool) []byte {
	var f Frame
	s.mu.Lock()
	first := s.sb.len()
	if scrollback {
		first = 0
	}
	s.snapshotRange(&f, first, s.sb.len()+s.rows-first)
	s.mu.Unlock()
	if sgr {
		return RenderTrimmed(dst, &f)
	}
	return RenderText(dst, &f)
}

// ScrollbackLen returns how many lines the scrollback holds.
func (s *Screen) ScrollbackLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sb.len()
}

func (s *Screen) snapshotRange(f *Frame, first, n int) {
	s.flush()
	f.setSize(s.cols, n)
	f.src = nil
	f.changed = f.changed[:0]
	for range n {
		f.changed = append(f.changed, true)
	}
	sbLen := s.sb.len()
	f.Wrapped = f.Wrapped[:0]
	for y := 0; y < n; y++ {
		row := f.Row(y)
		if i := first + y; i < sbLen {
			l := s.sb.line(i)
			l.cells(s.sb.styles, row)
			f.Wrapped = append(f.Wrapped, l.wrapped)
		} else {
			s.readRowInto(i-sbLen, row)
			f.Wrapped = append(f.Wrapped, s.term.Cell(s.cols-1, i-sbLen).Mode&vtWrap != 0)
		}
	}
	s.frameMeta(f, first, n)
}

// frameMeta fills in what a frame holds beside its cells.
func (s *Screen) frameMeta(f *Frame, first, n int) {
	sbLen := s.sb.len()
	c := s.term.Cursor()
	st := &s.f.st
	cy := sbLen + c.Y - first
	f.Cursor = Cursor{X: c.X, Y: cy, Shape: max(st.shape, CursorBlinkingBlock), Color: st.cursorColor,
		Visible: st.modes.CursorVisible && cy >= 0 && cy < n}
	f.Modes = st.modes
	f.Title = st.title
	f.Links = append(f.Links[:0], s.f.links.urls...)
	f.Scrollback = sbLen
	f.First = first
}
