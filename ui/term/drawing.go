package term

import tea "charm.land/bubbletea/v2"

// The frames handed over are the Terminal's own: hand copies a view's
// lines, the outer slice of its cuts and its cursor into a drawing of the
// Terminal's, so the view composes its next frame in the same slices.
// Making that copy in drawings kept for reuse, rather than the view
// cloning each frame for the drawing goroutine, took a key and its echo
// (ui's BenchmarkEcho) from 2,935 bytes in 11 allocations to 310 in 5:
// on a server still young, each 4 KiB allocated was a page touched for
// the first time, a fault taken between the key and its echo.
//
// At most three drawings are held at once: the one handed last, the one
// pending (that one, or none), and the one being drawn; any other is a
// spare for the next hand.

// drawing is what one draw shows.
type drawing struct {
	lines  []string
	cuts   [][]Cut     // each line's parts, nil (or a nil line) for whole lines
	cursor *tea.Cursor // nil hides it
	width  int
	last   bool       // the last frame of a view recording that is stopping
	cur    tea.Cursor // where cursor points in a drawing the Terminal made
}

// maxSpare bounds the drawings kept for reuse.
const maxSpare = 2

// newDrawing is a copy of a frame handed over, in a spare drawing when
// there is one; mu held.
func (t *Terminal) newDrawing(lines []string, cuts [][]Cut, cursor *tea.Cursor, width int) *drawing {
	var d *drawing
	if n := len(t.spare); n > 0 {
		d, t.spare = t.spare[n-1], t.spare[:n-1]
	} else {
		d = new(drawing)
	}
	d.lines = append(d.lines[:0], lines...)
	d.cuts = append(d.cuts[:0], cuts...)
	d.cursor, d.width, d.last = nil, width, false
	if cursor != nil {
		d.cur = *cursor
		d.cursor = &d.cur
	}
	return d
}

// release keeps d for reuse unless it is still handed, pending or being
// drawn; mu held. Its lines are let go: a spare holds no frame's text.
func (t *Terminal) release(d *drawing) {
	if d == nil || d == t.handed || d == t.pending || d == t.inDraw || len(t.spare) >= maxSpare {
		return
	}
	clear(d.lines)
	clear(d.cuts)
	t.spare = append(t.spare, d)
}

// same reports whether d shows what o shows. Lines a view did not
// compose again are the same strings, which compare by pointer first.
func (d *drawing) same(o *drawing) bool {
	if d == nil || o == nil || d.width != o.width || len(d.lines) != len(o.lines) || d.last || o.last {
		return false
	}
	if (d.cursor == nil) != (o.cursor == nil) || d.cursor != nil && *d.cursor != *o.cursor {
		return false
	}
	for i := range d.lines {
		if d.lines[i] != o.lines[i] {
			return false
		}
	}
	return true
}

// cutsOf is line y's cuts, nil when it is drawn whole.
func (d *drawing) cutsOf(y int) []Cut {
	if y < len(d.cuts) {
		return d.cuts[y]
	}
	return nil
}
