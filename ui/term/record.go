package term

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/record"
)

// Recording a client's view: what sandmux writes to that client's
// terminal, as its Terminal draws it, at its size. The Terminal's drawing
// goroutine hands each drawing's bytes to the recording, which only
// queues them (bounded); the recording's own goroutine writes the cast.
// The cast starts with a whole frame (starting a recording makes the
// Terminal repaint everything) and a resize is an 'r' event before the
// frame redrawn at the new size. What passes through to the terminal
// (clipboard writes, notifications) is not recorded.

// viewMaxPending bounds what a view recording holds for its writer.
const viewMaxPending = 8 << 20

// Recording writes one Terminal's drawings to a cast.
type Recording struct {
	term *Terminal

	q          *record.Queue
	mu         sync.Mutex
	begun      bool // the first whole frame came
	start      time.Time
	cols, rows int // the size now
	dropped    int
	stopped    bool

	// ending: the view stopped showing the recording's mark; the next
	// frame the Terminal is shown is the cast's last (final closed once
	// it is taken), so the cast ends on what the user saw after the stop.
	ending    bool
	final     chan struct{}
	finalOnce sync.Once

	err  error
	once sync.Once
}

// viewFinalWait bounds how long a stopping recording waits for the frame
// drawn after its mark left the status line.
const viewFinalWait = 2 * time.Second

// Record starts recording what t draws to out, a new cast file that the
// recording closes when it stops.
func (t *Terminal) Record(out io.WriteCloser) *Recording {
	r := &Recording{term: t, q: record.NewQueue(out), final: make(chan struct{})}
	t.mu.Lock()
	t.rec, t.repaint = r, true
	t.mu.Unlock()
	t.poke()
	return r
}

// drawn takes one drawing's bytes, from the drawing goroutine; it
// reports whether it took them, or needs a whole frame first.
func (r *Recording) drawn(at time.Time, cols, rows int, full, last bool, b []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if last {
		defer r.taken()
	}
	switch {
	case r.stopped:
		return true
	case !r.begun && !full:
		return false
	case r.dropped > 0 && !full && r.q.Pending() > 0:
		// Still behind: drop this one too, and ask for a whole frame only
		// once the writer caught up, not on every drawing meanwhile (each
		// would repaint the user's terminal whole).
		r.dropped += len(b)
		return true
	case r.dropped > 0 && !full:
		return false
	}
	if r.q.Pending()+len(b) > viewMaxPending {
		// Behind: this drawing goes, and the next is asked for whole
		// (not this one again: a writer still behind would refuse it).
		r.dropped += len(b)
		return true
	}
	if !r.begun {
		r.begun, r.start, r.cols, r.rows = true, at, cols, rows
		r.q.Begin(asciicast.Header{Width: cols, Height: rows, Timestamp: at.Unix(), Title: "sandmux", Env: map[string]string{"TERM": "xterm-256color"}})
	}
	t := at.Sub(r.start)
	if r.dropped > 0 {
		r.q.Push(t, "m", fmt.Sprintf("sandmux: %d bytes of drawing dropped", r.dropped))
		r.dropped = 0
	}
	if cols != r.cols || rows != r.rows {
		r.cols, r.rows = cols, rows
		r.q.Push(t, "r", strconv.Itoa(cols)+"x"+strconv.Itoa(rows))
	}
	r.q.Push(t, "o", string(b))
	return true
}

// End says the view no longer shows the recording's mark: the frame
// shown next is the last recorded. Call it before Stop, from the code
// that shows the frames.
func (r *Recording) End() {
	r.mu.Lock()
	r.ending = true
	r.mu.Unlock()
}

func (r *Recording) isEnding() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ending
}

// taken says the last frame was recorded (or had nothing to draw).
func (r *Recording) taken() { r.finalOnce.Do(func() { close(r.final) }) }

// Stop ends the recording: once the frame after End was drawn (within
// viewFinalWait, or at once when the Terminal closes), the Terminal lets
// it go, what is queued is written and the file closed. It is idempotent.
func (r *Recording) Stop() error {
	r.once.Do(func() {
		if r.isEnding() {
			timer := time.NewTimer(viewFinalWait)
			select {
			case <-r.final:
			case <-r.term.quit:
			case <-timer.C:
			}
			timer.Stop()
		}
		r.term.mu.Lock()
		if r.term.rec == r {
			r.term.rec = nil
		}
		r.term.mu.Unlock()
		r.mu.Lock()
		r.stopped = true
		begun := r.begun
		r.mu.Unlock()
		r.err = r.q.Close() // says what to check
		if r.err == nil && !begun {
			r.err = errors.New("nothing was drawn while it recorded: the cast is empty")
		}
	})
	return r.err
}

// recordDrawing hands the drawing just written to the recording, if any,
// from the drawing goroutine; a recording that needs a whole frame gets
// the next drawing redrawn whole.
func (t *Terminal) recordDrawing(rec *Recording, full, last bool, b []byte) {
	if rec == nil {
		return
	}
	if len(b) == 0 {
		if last {
			rec.taken()
		}
		return
	}
	if !rec.drawn(time.Now(), t.width, t.height, full, last, b) {
		t.mu.Lock()
		t.repaint = true
		t.mu.Unlock()
		t.poke()
	}
}

// lastDrawing is the frame drawn last, to draw again whole.
func (t *Terminal) lastDrawing() *drawing {
	if len(t.prev) == 0 {
		return nil
	}
	d := &drawing{lines: append([]string(nil), t.prev...), width: t.width}
	if t.cursorShown {
		c := t.cursor
		d.cursor = &c
	}
	return d
}

// poke wakes the drawing goroutine.
func (t *Terminal) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}
