package ui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

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

// viewRecording writes one Terminal's drawings to a cast.
type viewRecording struct {
	term    *Terminal
	path    string
	started time.Time // wall time it was asked for, for the status line

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

// recordView starts recording what t draws to out.
func recordView(t *Terminal, out io.WriteCloser, path string, now time.Time) *viewRecording {
	r := &viewRecording{term: t, path: path, started: now, q: record.NewQueue(out), final: make(chan struct{})}
	t.mu.Lock()
	t.rec, t.repaint = r, true
	t.mu.Unlock()
	t.poke()
	return r
}

// drawn takes one drawing's bytes, from the drawing goroutine; it
// reports whether it took them, or needs a whole frame first.
func (r *viewRecording) drawn(at time.Time, cols, rows int, full, last bool, b []byte) bool {
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

// end says the view no longer shows the recording's mark: the frame
// shown next is the last recorded. Called in Update, before Stop.
func (r *viewRecording) end() {
	r.mu.Lock()
	r.ending = true
	r.mu.Unlock()
}

func (r *viewRecording) isEnding() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ending
}

// taken says the last frame was recorded (or had nothing to draw).
func (r *viewRecording) taken() { r.finalOnce.Do(func() { close(r.final) }) }

// Stop ends the recording: once the frame after end() was drawn (within
// viewFinalWait, or at once when the Terminal closes), the Terminal lets
// it go, what is queued is written and the file closed. It is idempotent.
func (r *viewRecording) Stop() error {
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
func (t *Terminal) recordDrawing(rec *viewRecording, full, last bool, b []byte) {
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

// startViewRecording opens a cast file for client id's view in a
// command; the recording starts once it is open.
func (m *Model) startViewRecording(id int, path string, done func(string, error), tell int) (tea.Cmd, error) {
	v := m.viewByID(id)
	switch {
	case m.quitting:
		return nil, errors.New("the server is quitting: nothing new is recorded")
	case v == nil || v.term == nil:
		return nil, fmt.Errorf("no client %d is attached: sandmux ctl ls counts them", id)
	}
	if r, taken := m.rec.views[id]; taken {
		if r == nil {
			return nil, fmt.Errorf("client %d's view recording is starting already", id)
		}
		return nil, fmt.Errorf("client %d's view is recorded already, to %s: stop that first", id, r.path)
	}
	if m.rec.views == nil {
		m.rec.views = map[int]*viewRecording{}
	}
	m.rec.views[id] = nil // opening: taken, so a second start is refused
	dir, now, stop := m.cfg.Record.Dir, m.now(), m.stop
	return func() tea.Msg {
		f, path, err := createCast(dir, path, fmt.Sprintf("view-%d", id), now)
		if dropIfDone(stop, f, path) {
			return nil
		}
		return viewOpenedMsg{id: id, term: v.term, f: f, path: path, done: done, tell: tell, err: err}
	}, nil
}

type viewOpenedMsg struct {
	id   int
	term *Terminal
	f    io.WriteCloser
	path string
	done func(string, error)
	tell int
	err  error
}

func (viewOpenedMsg) recMsg() {}

func (m *Model) viewOpened(msg viewOpenedMsg) tea.Cmd {
	v := m.viewByID(msg.id)
	err := msg.err
	r, opening := m.rec.views[msg.id]
	switch {
	case err != nil:
	case v == nil || v.term != msg.term || m.quitting:
		err = fmt.Errorf("client %d left before its recording started", msg.id)
	case !opening || r != nil:
		err = fmt.Errorf("client %d's view recording was stopped before it started", msg.id)
	}
	if err != nil {
		if opening && r == nil {
			delete(m.rec.views, msg.id)
		}
		if msg.done != nil {
			msg.done(msg.path, err)
		}
		m.tell(msg.tell, "not recorded: "+err.Error())
		if f, path := msg.f, msg.path; f != nil {
			// Nothing was written: the empty file goes too.
			return func() tea.Msg { _ = f.Close(); _ = os.Remove(path); return nil }
		}
		return nil
	}
	m.rec.views[msg.id] = recordView(v.term, msg.f, msg.path, m.now())
	m.redraw = true
	m.emit(Event{Kind: EventRecording, Client: msg.id, Detail: fmt.Sprintf("started client %d's view: %s", msg.id, msg.path)})
	if msg.done != nil {
		msg.done(msg.path, nil)
	}
	m.tell(msg.tell, "recording this view to "+msg.path)
	return nil
}

// stopViewRecording stops client id's view recording in a command.
func (m *Model) stopViewRecording(id int, why string, done func(string, error), tell int) tea.Cmd {
	r, taken := m.rec.views[id]
	if taken && r == nil {
		delete(m.rec.views, id) // still opening: viewOpened drops the file
		return nil
	}
	if r == nil {
		return nil
	}
	delete(m.rec.views, id)
	r.end() // the frame shown after this Update, without the mark, ends the cast
	m.redraw = true
	detail := fmt.Sprintf("stopped client %d's view: %s", id, r.path)
	if why != "" {
		detail += " (" + why + ")"
	}
	m.emit(Event{Kind: EventRecording, Client: id, Detail: detail})
	return m.stopping(r.path, r.Stop, done, tell)
}

// viewRecMark is the status line's mark of this view's recording.
func (v *view) viewRecMark() string {
	r := v.m.rec.views[v.id]
	if r == nil {
		return ""
	}
	return "REC VIEW " + clock(v.m.now().Sub(r.started))
}
