package session

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Collector is the settled UTF-8 collector between a PTY's reader and its
// consumer: a bounded byte queue on one side, windows of text that is always
// complete, valid UTF-8 on the other (CONTRACTS.md O1–O6, O8).
//
//	reader ─► Push(raw) ─► queue (bounded; Push blocks when full)
//	                           │
//	consumer ◄── Collect ◄─────┘  window: take, gather ≤ maxWait, drain,
//	                              decode; hold back ≤ 3 bytes of carry
//
// One goroutine pushes and then closes; one goroutine collects. The two meet
// only under mu; waiting is done on one-token channels so both sides can give
// up when their context ends, which sync.Cond cannot.
type Collector struct {
	capacity int

	// wake tells the consumer that bytes were queued or output closed;
	// space tells the producer that a window released what it held. Each
	// holds one token, so a signal sent while nobody waits is kept and
	// repeated signals collapse; waiters always re-check state under mu.
	wake  chan struct{}
	space chan struct{}

	mu     sync.Mutex
	queue  []byte // pushed, not yet taken by a window
	held   int    // bytes the current window took; they still count against capacity
	closed bool   // the producer has pushed its last byte

	// Consumer state, touched only by the goroutine calling Collect.
	win      []byte      // the carry (≤ 3 bytes) followed by the bytes taken this window
	scratch  []byte      // decode output, reused for windows that need replacement
	timer    *time.Timer // the window deadline, reused across windows
	finished bool        // a window returned closed=true
	lastText time.Time   // when the last window with text returned
	// winBytes is cap(win)+cap(scratch) after the last window, for
	// MemBytes, which other goroutines call.
	winBytes atomic.Int64

	// hookDeadline, if set, runs when a window's deadline has passed and
	// before its final drain, so a test can place bytes exactly "at the
	// deadline" (O6) without racing the clock.
	hookDeadline func()
}

// keepBuffer is the most a window's buffers keep once output is no
// longer flooding.
const keepBuffer = 32 << 10

// NewCollector returns a collector whose queue holds about capacity bytes:
// Push blocks once that many are queued or held by the window in progress,
// so memory stays within capacity plus one pushed chunk (O8). A capacity
// below 1 is taken as 1, since a zero capacity would block every Push.
func NewCollector(capacity int) *Collector {
	return &Collector{
		capacity: max(capacity, 1),
		wake:     make(chan struct{}, 1),
		space:    make(chan struct{}, 1),
	}
}

// notifyOne leaves a token in ch unless one is already waiting there.
func notifyOne(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Push queues a copy of p (the caller may reuse p). It blocks while the
// queue is full and returns context.Cause(ctx) if ctx is done while it is
// blocked, in which case none of p was queued. It never drops bytes
// otherwise. Push must not be called after Close; doing so panics, like a
// send on a closed channel, because it means the producer lost track of its
// own lifecycle.
func (c *Collector) Push(ctx context.Context, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			panic("session: Collector.Push after Close")
		}
		// The whole chunk goes in once there is any room: splitting it
		// would not lower the bound by more than one chunk and would cost
		// a wake-up per piece.
		if len(c.queue)+c.held < c.capacity {
			c.queue = appendPooled(c.queue, p, readBufBytes)
			c.mu.Unlock()
			notifyOne(c.wake)
			return nil
		}
		c.mu.Unlock()
		select {
		case <-c.space:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Close marks output closed: the producer calls it after its last Push.
// It is idempotent.
func (c *Collector) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	notifyOne(c.wake)
}

// Collect runs one window. It waits until bytes are queued, output is
// closed, or ctx is done; then, when output is streaming (the previous
// window returned text within maxWait), it keeps gathering until maxWait
// has passed since the first byte was taken (maxWait ≤ 0, or the first
// bytes after a pause: only what is there now),
// drains once more at the deadline and re-checks closed (O6), and returns
// the settled text: complete, valid UTF-8 with one U+FFFD per maximal
// invalid subpart (O2), holding back at most 3 bytes of a valid incomplete
// sequence (O3).
//
// A window ends before maxWait when output is closed (nothing more can
// come) or when it holds capacity bytes (the producer is blocked, so
// waiting longer only stalls the stream).
//
// closed is true when this window observed output closed and everything,
// carry included, has been returned (O4); later calls return ("", true, nil)
// at once. A window never returns empty text with closed=false: if all it
// has is a carry, it keeps waiting. If ctx is done before the window
// returns, every byte it took, and the carry, goes back to the front of the
// queue and Collect returns context.Cause(ctx) (O5).
//
// Only one goroutine may call Collect.
func (c *Collector) Collect(ctx context.Context, maxWait time.Duration) (text string, closed bool, err error) {
	if c.finished {
		return "", true, nil
	}
	for {
		closed, err = c.awaitFirst(ctx)
		// Leading edge: the first bytes after a quiet spell (a typed key's
		// echo, a prompt) go out at once; only a stream, whose windows
		// follow each other within maxWait, is gathered into windows.
		if err == nil && !closed && maxWait > 0 && !c.full() && !c.quiet(maxWait) {
			closed, err = c.gather(ctx, maxWait)
		}
		// Checked once more so that a cancelled window never reports
		// text, even when its deadline and its cancellation coincide.
		if err == nil && ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			c.unwind()
			return "", false, err
		}
		text = c.decode(closed)
		if closed {
			c.finished = true
			return text, true, nil
		}
		if text != "" {
			c.lastText = time.Now()
			return text, false, nil
		}
		// Only a carry is left: keep waiting for the bytes that complete
		// it rather than return an empty window.
	}
}

// Take is a window for a reader that settles its own read: it queues p
// behind whatever is queued and returns the settled text of all of it at
// once, without waiting, "" when all it holds is a carry (O1–O3 as
// Collect keeps them). It never waits for room: the queue it empties held
// at most capacity bytes. Calls to Take and Collect must not overlap (the
// session's deliverMu orders them), and Take must not follow Close.
func (c *Collector) Take(p []byte) string {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		panic("session: Collector.Take after Close")
	}
	c.queue = appendFlood(c.queue, p)
	c.takeLocked()
	c.mu.Unlock()
	return c.decode(false)
}

// Pending reports whether bytes are queued or output is closed: whether
// a Collect would return without waiting for the producer.
func (c *Collector) Pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue) > 0 || c.closed
}

// Await blocks until bytes were queued or output closed since it was last
// told (a Take may have taken them since: check Pending), or ctx is done.
func (c *Collector) Await(ctx context.Context) error {
	for {
		if c.Pending() {
			return nil
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// awaitFirst blocks until it has taken at least one byte or seen output
// closed, and reports closed.
func (c *Collector) awaitFirst(ctx context.Context) (closed bool, err error) {
	if ctx.Err() != nil {
		return false, context.Cause(ctx)
	}
	for {
		c.mu.Lock()
		n, closed := c.takeLocked()
		c.mu.Unlock()
		if n > 0 || closed {
			return closed, nil
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return false, context.Cause(ctx)
		}
	}
}

// gather keeps taking bytes until maxWait has passed, then drains once more
// so bytes that arrived at the deadline belong to this window (O6). It stops
// early when output closes or the window is full.
func (c *Collector) gather(ctx context.Context, maxWait time.Duration) (closed bool, err error) {
	if c.timer == nil {
		c.timer = time.NewTimer(maxWait)
	} else {
		c.timer.Reset(maxWait)
	}
	// Since Go 1.23 Stop guarantees no stale tick is delivered after it,
	// so the timer can be reused for the next window without draining.
	defer c.timer.Stop()
	for {
		select {
		case <-c.timer.C:
			if c.hookDeadline != nil {
				c.hookDeadline()
			}
			c.mu.Lock()
			_, closed = c.takeLocked()
			c.mu.Unlock()
			return closed, nil
		case <-c.wake:
			c.mu.Lock()
			_, closed = c.takeLocked()
			full := c.held >= c.capacity
			c.mu.Unlock()
			if closed || full {
				return closed, nil
			}
		case <-ctx.Done():
			return false, context.Cause(ctx)
		}
	}
}

// quiet reports whether the last window with text returned more than
// maxWait ago (or never did): output is starting after a pause rather than
// streaming.
func (c *Collector) quiet(maxWait time.Duration) bool {
	return time.Since(c.lastText) > maxWait
}

// full reports whether the window holds capacity bytes, so the producer is
// blocked until it returns.
func (c *Collector) full() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held >= c.capacity
}

// takeLocked moves the queue's bytes into the window and reports how many,
// and whether output is closed. Reading both in one critical section is what
// makes closed mean "and the queue is empty": Close follows the last Push.
func (c *Collector) takeLocked() (n int, closed bool) {
	n = len(c.queue)
	if n > 0 {
		if len(c.win) == 0 {
			// No carry: swap buffers instead of copying.
			c.win, c.queue = c.queue, c.win[:0]
		} else {
			c.win = appendFlood(c.win, c.queue)
			c.queue = c.queue[:0]
		}
		c.held += n
	}
	return n, c.closed
}

// unwind puts the window's bytes, carry first, back at the front of the
// queue, so a cancelled window loses nothing and a later one returns them
// once (O5). The total of queue and held is unchanged, so the producer's
// bound still holds.
func (c *Collector) unwind() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = 0
	if len(c.win) == 0 {
		return
	}
	c.win = append(c.win, c.queue...)
	c.win, c.queue = c.queue[:0], c.win
}

// decode turns the window into text, keeps the carry at the front of win for
// the next window, and releases the window's hold on the queue's capacity.
func (c *Collector) decode(final bool) string {
	text, settled, scratch := decodeWindow(c.win, final, c.scratch)
	c.scratch = scratch
	c.win = c.win[:copy(c.win, c.win[settled:])]
	// A flood grows the window's buffers to the queue's capacity; once
	// windows are small again (the flood is over) they go, so an idle
	// pane does not keep a flood's worth of memory. During a flood every
	// window is large and the buffers stay.
	shrink := settled < keepBuffer/4
	if shrink && cap(c.win) > keepBuffer {
		old := c.win
		c.win = append([]byte(nil), c.win...)
		releaseFlood(old)
	}
	if shrink && cap(c.scratch) > keepBuffer {
		releaseFlood(c.scratch)
		c.scratch = nil
	}
	c.winBytes.Store(int64(cap(c.win) + cap(c.scratch)))

	c.mu.Lock()
	if shrink && len(c.queue) == 0 && cap(c.queue) > keepBuffer {
		releaseFlood(c.queue)
		c.queue = nil
	}
	released := c.held > 0
	c.held = 0
	c.mu.Unlock()
	if released {
		notifyOne(c.space)
	}
	return text
}
