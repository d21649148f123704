// Package term is the output device of one client: the Terminal that
// puts a terminal in the modes sandmux needs, draws each frame a view
// composed (only the cells of the lines that changed, span.go, inside a
// synchronized update) from a goroutine of its own, passes sequences
// through, and records what it draws as a cast (record.go;
// mux.CreateCast makes the file).
//
// It owns the bytes written to a client's terminal. It knows no pane and
// no view: package ui composes the lines it shows.
package term

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	tea "charm.land/bubbletea/v2"
	xterm "github.com/charmbracelet/x/term"
)

// Terminal owns the user's terminal while the UI runs: raw mode, the
// alternate screen, the reporting modes sandmux needs (mouse, focus,
// bracketed paste), and a goroutine that draws each frame as soon as
// Update hands it over, writing only the lines that changed.
//
// sandmux draws its own frames instead of using Bubble Tea's renderer
// because that renderer writes on a fixed-rate ticker: every frame waited
// for the next tick (a typed key's echo with it), and an idle sandmux
// woke up at that rate forever. Bubble Tea still reads and decodes input.
type Terminal struct {
	in    *os.File
	out   io.Writer
	state *xterm.State // the input's settings before raw mode

	mu      sync.Mutex
	pending *drawing      // the newest frame not yet drawn
	handed  *drawing      // the newest frame Show was given
	inDraw  *drawing      // the frame being drawn, out of pending (drawMu held)
	spare   []*drawing    // drawings none of the three holds, for the next frames (drawing.go)
	through []byte        // sequences to pass on before the next frame
	wake    chan struct{} // one slot: a frame is pending
	rec     *Recording    // records what is drawn (record.go)
	repaint bool          // the next drawing redraws everything
	quit    chan struct{}
	wg      sync.WaitGroup

	// now is out when it can write without waiting (a terminal handed
	// to the server): a frame with a key's echo is then drawn by the
	// Update that made it (ShowNow), not handed to the goroutine.
	now nowWriter

	// drawMu is held by whoever draws, the goroutine or ShowNow: it
	// guards what follows and keeps the frames in order.
	drawMu        sync.Mutex
	closed        bool // Close undid the modes: nothing more is drawn
	prev          []string
	prevCuts      [][]Cut // the parts of each of prev's lines, nil for a line drawn whole
	width, height int
	cursorShown   bool
	cursor        tea.Cursor // where the cursor was left, when shown
	buf           []byte
}

// Cut is where a part of a line starts: its byte in the line and its
// column. A part starts and ends in the default style (each pane's row,
// each title), so a part that changed can be written alone at its
// column: a line holds a row of each pane beside it, and a frame of one
// busy pane among 16 rewrote the other three's rows with it, 2.8 times
// the bytes tmux sends for the same screen.
type Cut struct{ At, Col int }

// Modes sandmux sets on the outer terminal, and the sequences that undo
// them, in reverse.
const (
	enterModes = "\x1b[?1049h" + // alternate screen
		"\x1b[?1002h\x1b[?1006h" + // mouse: clicks, drags, wheel; SGR coordinates
		"\x1b[?1004h" + // focus reports
		"\x1b[?2004h" + // bracketed paste
		// The richest key reports the terminal has, as Bubble Tea asks
		// for them: modifyOtherKeys 2 and the kitty protocol's
		// disambiguation (a terminal with both reports by the kitty
		// protocol); the query says which it took.
		"\x1b[>4;2m\x1b[>1u\x1b[?u" +
		"\x1b[?2031h" + ColorQueries + // colour-scheme changes, and the colours
		"\x1b[?25l" + // no cursor until a frame places it
		"\x1b[22;0t\x1b]2;sandmux\x07" // the title, saved first
	leaveModes = "\x1b[?2031l\x1b[<u\x1b[>4m\x1b[?2004l\x1b[?1004l\x1b[?1006l\x1b[?1002l\x1b[m\x1b[?25h\x1b[0 q\x1b]112\x07\x1b[?1049l\x1b[23;0t"
)

// ColorQueries ask the terminal for its foreground, background and
// cursor colours; the answers come back as input.
const ColorQueries = "\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b]12;?\x1b\\"

// Open puts in (when it is a terminal) into raw mode, sets up out and
// starts drawing. Close undoes all of it; call it on every exit path.
func Open(in *os.File, out io.Writer) (*Terminal, error) {
	t := &Terminal{in: in, out: out, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	if nw, ok := out.(nowWriter); ok {
		if _, can := nw.WriteNow(nil); can {
			t.now = nw
		}
	}
	if in != nil && xterm.IsTerminal(in.Fd()) {
		st, err := xterm.MakeRaw(in.Fd())
		if err != nil {
			return nil, fmt.Errorf("put the terminal in raw mode: %w", err)
		}
		t.state = st
	}
	if _, err := io.WriteString(out, enterModes); err != nil {
		t.restore()
		return nil, fmt.Errorf("set up the terminal: %w", err)
	}
	t.wg.Go(t.draw)
	return t, nil
}

// Show hands a frame to the drawing goroutine without waiting: a frame not
// yet drawn is replaced by the newer one.
func (t *Terminal) Show(lines []string, cursor *tea.Cursor, width int) {
	t.ShowParts(lines, nil, cursor, width)
}

// ShowParts is Show for lines made of parts (cuts, by line; a line's
// cuts start at its byte 0): of a line that changed, only the parts that
// changed are written, when its parts stand where they stood. The
// Terminal copies lines, cuts and cursor: the caller may compose its next
// frame in the same slices, but must not change a line's own cuts (the
// []Cut) once handed over.
func (t *Terminal) ShowParts(lines []string, cuts [][]Cut, cursor *tea.Cursor, width int) {
	if t.hand(lines, cuts, cursor, width) {
		t.poke()
	}
}

// hand makes the frame the pending one; false when it is the frame
// handed last (drawn or pending): drawing it again writes nothing, and
// waking the drawing goroutine for it would cost every Update that
// changed nothing on screen a goroutine hand-off, a key's among them.
func (t *Terminal) hand(lines []string, cuts [][]Cut, cursor *tea.Cursor, width int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.newDrawing(lines, cuts, cursor, width)
	d.last = t.rec != nil && t.rec.isEnding()
	if !d.last && t.handed.same(d) {
		t.release(d)
		return false
	}
	was := t.handed
	t.pending, t.handed = d, d
	t.release(was)
	return true
}

// write writes b, waiting as long as out does.
func (t *Terminal) write(b []byte) {
	_, _ = t.out.Write(b) // Best effort: a terminal that went away is noticed by the input side.
}

// maxPassthrough bounds the sequences waiting to be passed on: a pane that
// writes its clipboard faster than the terminal takes it loses the oldest.
const maxPassthrough = 4 << 20

// Passthrough hands seq, a whole sequence sandmux built, to the drawing
// goroutine, which writes it before the next frame. It never waits.
func (t *Terminal) Passthrough(seq string) {
	t.mu.Lock()
	if len(t.through)+len(seq) > maxPassthrough {
		t.through = t.through[:0] // Too much waiting: the newest write wins.
	}
	t.through = append(t.through, seq...)
	t.mu.Unlock()
	t.poke()
}

// Close draws the last frame, stops drawing, and restores the terminal:
// the modes, the main screen, the cursor and the input's settings.
func (t *Terminal) Close() error {
	close(t.quit)
	t.wg.Wait()
	t.drawMu.Lock()
	t.closed = true // no ShowNow draws past the modes undone
	t.drawMu.Unlock()
	_, err := io.WriteString(t.out, leaveModes)
	return joinErr(err, t.restore())
}

func (t *Terminal) restore() error {
	if t.state == nil {
		return nil
	}
	return xterm.Restore(t.in.Fd(), t.state)
}

func joinErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (t *Terminal) draw() {
	for {
		select {
		case <-t.wake:
		case <-t.quit:
			t.drawOwn()
			return
		}
		t.drawOwn()
	}
}

// drawOwn draws what is pending from the drawing goroutine, writing as
// long as out takes.
func (t *Terminal) drawOwn() {
	t.drawMu.Lock()
	defer t.drawMu.Unlock()
	t.drawPending(t.write)
}

// drawPending writes the sequences to pass on, then the pending frame,
// with write; drawMu held.
func (t *Terminal) drawPending(write func([]byte)) {
	t.mu.Lock()
	f := t.pending
	t.pending, t.inDraw = nil, f
	through := t.through
	t.through = nil
	rec, repaint := t.rec, t.repaint
	t.repaint = false
	t.mu.Unlock()
	if len(through) > 0 {
		write(through)
	}
	if repaint {
		if f == nil {
			f = t.lastDrawing()
		}
		t.width = -1 // a recording starts: draw the whole frame
	}
	if f == nil {
		return
	}
	full, last := f.width != t.width || len(f.lines) != t.height, f.last
	b := t.render(f)
	t.mu.Lock()
	t.inDraw = nil
	t.release(f) // rendered: its lines are in prev, and the next hand may reuse it
	t.mu.Unlock()
	if len(b) > 0 {
		write(b)
	}
	t.recordDrawing(rec, full, last, b)
}

// render returns the bytes that turn the previous frame into f: the
// cells of each line that changed rewritten at their columns, inside a
// synchronized update (terminals without it ignore the mode), the
// cursor hidden meanwhile.
func (t *Terminal) render(f *drawing) []byte {
	b := t.buf[:0]
	full := f.width != t.width || len(f.lines) != t.height
	if full {
		t.prev = t.prev[:0]
		t.width, t.height = f.width, len(f.lines)
	}
	b = append(b, "\x1b[?2026h\x1b[?25l"...)
	if full {
		b = append(b, "\x1b[m\x1b[2J"...)
	}
	changed := false
	for y, line := range f.lines {
		if y < len(t.prev) && t.prev[y] == line {
			continue
		}
		changed = true
		if cuts := f.cutsOf(y); y < len(t.prev) && sameCols(cuts, t.prevCuts[y]) {
			b = appendParts(b, y, line, cuts, t.prev[y], t.prevCuts[y])
			continue
		}
		if y < len(t.prev) {
			// The line drawn there before, by parts or whole, shows
			// what its bytes show from column 0 (each part starts and
			// ends in the default style, at its column).
			b = appendChange(b, y, 0, t.prev[y], line)
			continue
		}
		b = appendAt(b, y, 0, line)
	}
	t.prev = append(t.prev[:0], f.lines...)
	t.prevCuts = t.prevCuts[:0]
	for y := range f.lines {
		t.prevCuts = append(t.prevCuts, f.cutsOf(y))
	}
	if c := f.cursor; c != nil && !changed && !full && t.cursorShown && *c == t.cursor {
		// Nothing moved: nothing to write at all.
		return nil
	}
	if c := f.cursor; c != nil {
		t.cursor = *c
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(c.Y+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(c.X+1), 10)
		b = append(b, 'H')
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(decscusr(c)), 10)
		b = append(b, " q\x1b[?25h"...)
	} else if !changed && !full && !t.cursorShown {
		// Nothing moved and no cursor to show: nothing to write at all.
		return nil
	}
	t.cursorShown = f.cursor != nil
	b = append(b, "\x1b[?2026l"...)
	t.buf = b
	return b
}

// sameCols reports whether two lines' parts start at the same columns
// (and both have parts).
func sameCols(a, b []Cut) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Col != b[k].Col {
			return false
		}
	}
	return true
}

// part is the k-th part of line.
func part(line string, cuts []Cut, k int) string {
	if k+1 < len(cuts) {
		return line[cuts[k].At:cuts[k+1].At]
	}
	return line[cuts[k].At:]
}

// appendParts writes the parts of line y that differ from the line drawn
// there before (prev, its parts at the same columns): of each, the cells
// that changed (span.go).
func appendParts(b []byte, y int, line string, cuts []Cut, prev string, prevCuts []Cut) []byte {
	for k := range cuts {
		if p, was := part(line, cuts, k), part(prev, prevCuts, k); p != was {
			b = appendChange(b, y, cuts[k].Col, was, p)
		}
	}
	return b
}

// appendAt writes text at row y, column x, and leaves the style default.
func appendAt(b []byte, y, x int, text string) []byte {
	b = appendCUP(b, y, x)
	b = append(b, text...)
	return append(b, "\x1b[m"...)
}

// appendCUP moves the cursor to row y, column x.
func appendCUP(b []byte, y, x int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(x+1), 10)
	return append(b, 'H')
}

// decscusr is the DECSCUSR number of a cursor's shape and blink.
func decscusr(c *tea.Cursor) int {
	n := 1 // blinking block
	switch c.Shape {
	case tea.CursorUnderline:
		n = 3
	case tea.CursorBar:
		n = 5
	}
	if !c.Blink {
		n++
	}
	return n
}
