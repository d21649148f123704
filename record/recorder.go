package record

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/session/vt"
)

// DefaultMaxPending bounds what a Recorder holds for its writer.
const DefaultMaxPending = 8 << 20

// ErrDropped is in Stop's error when the writer fell behind and output
// was dropped; the cast has an 'm' event where, and goes on from a
// keyframe, so it still replays to the right screen.
var ErrDropped = errors.New("output dropped: the recording was written more slowly than the pane printed")

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// IdleLimit shortens every pause longer than it to it; 0 keeps them.
	IdleLimit time.Duration
	// MaxPending bounds the bytes waiting for the writer (default 8 MiB).
	MaxPending int
	// Header gives the cast's title, command and env; its size and
	// timestamp are the screen's when recording starts.
	Header asciicast.Header
}

// Recorder writes one screen to an asciicast v2 as it goes: a keyframe
// at time 0, then 'o' output, 'r' resizes and 'm' markers. The screen's
// tap only queues (bounded); the Queue's goroutine writes, and Stop
// waits for it.
type Recorder struct {
	screen *vt.Screen
	opts   RecorderOptions

	q        *Queue
	mu       sync.Mutex
	cols     int
	rows     int
	started  bool
	startAt  time.Time
	prevAt   time.Time     // wall time of the last event
	prevT    time.Duration // its time in the cast
	paused   bool
	resuming bool
	needKF   bool // output was dropped: wait for a keyframe
	dropped  int
	stopped  bool
	untap    func()

	err  error // how it ended, once stopped
	stop sync.Once
}

// Start records s to w, closing w at Stop when it is an io.Closer.
func Start(s *vt.Screen, w io.Writer, opts RecorderOptions) *Recorder {
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	r := &Recorder{screen: s, opts: opts, q: NewQueue(w)}
	untap := s.Tap(r)
	r.mu.Lock()
	r.untap = untap
	r.mu.Unlock()
	return r
}

// Keyframe starts the cast, or shows the screen again after a pause or a
// drop (vt.Tap).
func (r *Recorder) Keyframe(at time.Time, cols, rows int, kf []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.q.Failed() || r.q.Pending()+len(kf) > r.opts.MaxPending && !r.stopped {
		return // still behind: a later keyframe (Stop takes one anyway)
	}
	if !r.started {
		r.started, r.startAt, r.prevAt, r.cols, r.rows = true, at, at, cols, rows
		h := r.opts.Header
		h.Width, h.Height, h.Timestamp = cols, rows, at.Unix()
		r.q.Begin(h)
		r.q.Push(0, "o", string(kf))
		return
	}
	if r.resuming {
		r.prevAt, r.resuming = at, false // the pause is cut out
	}
	t := r.castTime(at)
	if r.needKF {
		r.q.Push(t, "m", fmt.Sprintf("sandmux: %d bytes of output dropped", r.dropped))
		r.needKF = false
	}
	if cols != r.cols || rows != r.rows {
		r.cols, r.rows = cols, rows
		r.q.Push(t, "r", size(cols, rows))
	}
	r.q.Push(t, "o", string(kf))
}

// Output queues text (vt.Tap).
func (r *Recorder) Output(at time.Time, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skip() {
		return
	}
	if r.q.Pending()+len(text) > r.opts.MaxPending {
		r.dropped += len(text)
		r.needKF = true
		return
	}
	r.q.Push(r.castTime(at), "o", text)
}

// Resize queues a size change (vt.Tap).
func (r *Recorder) Resize(at time.Time, cols, rows int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skip() {
		return
	}
	r.cols, r.rows = cols, rows
	r.q.Push(r.castTime(at), "r", size(cols, rows))
}

// WantKeyframe asks for one after a drop (vt.Tap), once the writer has
// caught up halfway: asked while it is still behind, the screen would
// build a keyframe after every slice only for Keyframe to drop it.
func (r *Recorder) WantKeyframe() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.needKF && !r.q.Failed() && !r.paused && r.q.Pending() <= r.opts.MaxPending/2
}

func (r *Recorder) skip() bool { return r.q.Failed() || r.needKF || r.paused || !r.started }

// Marker adds an 'm' event with label at the current time.
func (r *Recorder) Marker(label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.q.Failed() || !r.started || r.stopped {
		return
	}
	t := r.prevT
	if !r.paused {
		t = r.castTime(time.Now())
	}
	r.q.Push(t, "m", label)
}

// Pause stops recording; the time until Resume is cut out of the cast.
func (r *Recorder) Pause() {
	r.mu.Lock()
	if r.paused || r.stopped {
		r.mu.Unlock()
		return
	}
	r.paused = true
	untap := r.untap
	r.untap = nil
	r.mu.Unlock()
	if untap != nil {
		untap()
	}
}

// Resume goes on recording, from a keyframe of the screen as it is now.
func (r *Recorder) Resume() {
	r.mu.Lock()
	if !r.paused || r.stopped {
		r.mu.Unlock()
		return
	}
	r.paused, r.resuming = false, true
	r.mu.Unlock()
	untap := r.screen.Tap(r)
	r.mu.Lock()
	if r.stopped || r.paused {
		// Stop or Pause came while tapping: they found no tap to remove.
		r.mu.Unlock()
		untap()
		return
	}
	r.untap = untap
	r.mu.Unlock()
}

// Elapsed returns how long the cast runs so far (pauses cut out).
func (r *Recorder) Elapsed() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prevT
}

// Stop ends the recording: it removes the tap, waits until everything
// queued is written, flushes and closes the writer. Its error says what
// failed or was dropped. Stop is idempotent.
func (r *Recorder) Stop() error {
	r.stop.Do(func() {
		r.mu.Lock()
		r.stopped = true
		untap := r.untap
		r.untap = nil
		resync := r.needKF && !r.q.Failed() && !r.paused
		r.mu.Unlock()
		if untap != nil {
			untap()
		}
		if resync {
			// Output was dropped since the last keyframe: end on one, so
			// the cast ends on the screen as it is.
			r.screen.Tap(r)()
		}
		r.err = r.q.Close()
		if r.dropped > 0 {
			r.err = errors.Join(r.err, fmt.Errorf("%w: %d bytes; give the recording a faster disk or raise its buffer", ErrDropped, r.dropped))
		}
	})
	return r.err
}

// castTime maps wall time to cast time: monotonic, with pauses longer
// than the idle limit shortened to it.
func (r *Recorder) castTime(at time.Time) time.Duration {
	d := max(at.Sub(r.prevAt), 0)
	if l := r.opts.IdleLimit; l > 0 && d > l {
		d = l
	}
	r.prevAt = at
	r.prevT += d
	return r.prevT
}

func size(cols, rows int) string { return strconv.Itoa(cols) + "x" + strconv.Itoa(rows) }
