package record

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sandmux/sandmux/asciicast"
)

// Queue writes cast events on a goroutine of its own, so that whoever
// makes them (a screen's tap, a terminal's drawing goroutine) only copies
// and never waits on a disk. It counts what waits (Pending) and the
// maker decides what to drop when that is too much; Close writes what is
// queued, flushes, and closes the file. A write that fails ends the cast:
// what comes after is dropped, and Close says why.
type Queue struct {
	out io.Writer

	mu      sync.Mutex
	header  asciicast.Header
	events  []queued
	pending int
	failed  bool
	err     error

	wake chan struct{}
	done chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

type queued struct {
	t          time.Duration
	kind, data string
}

// eventCost is what an event counts for besides its data: its time, its
// kind and the JSON around them.
const eventCost = 32

// NewQueue starts writing to out; the cast begins with the header Begin
// gives, before the first event.
func NewQueue(out io.Writer) *Queue {
	q := &Queue{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	q.wg.Go(q.run)
	return q
}

// Begin sets the cast's header: its size and start are the screen's
// when its first event was made, not when the writer got to it.
func (q *Queue) Begin(h asciicast.Header) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.header = h
}

// Push queues one event at cast time t.
func (q *Queue) Push(t time.Duration, kind, data string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.failed {
		return
	}
	q.events = append(q.events, queued{t, kind, data})
	q.pending += len(data) + eventCost
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Pending is how many bytes wait for the writer.
func (q *Queue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending
}

// Failed reports whether a write failed: nothing more is written.
func (q *Queue) Failed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.failed
}

// Close writes what is queued, flushes, and closes out when it is an
// io.Closer. It is idempotent; its error is the first that ended the cast.
func (q *Queue) Close() error {
	q.once.Do(func() {
		close(q.done)
		q.wg.Wait()
		if c, ok := q.out.(io.Closer); ok {
			if err := c.Close(); err != nil {
				q.err = errors.Join(q.err, fmt.Errorf("close the cast: %w", err))
			}
		}
	})
	return q.err
}

// run writes what is queued until Close, then the rest.
func (q *Queue) run() {
	var cw *asciicast.Writer
	var batch []queued
	for {
		var closing bool
		select {
		case <-q.wake:
		case <-q.done:
			closing = true
		}
		q.mu.Lock()
		clear(batch) // what was written: let it go
		batch, q.events = q.events, batch[:0]
		q.pending = 0
		h := q.header
		q.mu.Unlock()
		if err := q.write(&cw, h, batch); err != nil {
			q.mu.Lock()
			q.err = fmt.Errorf("write the cast: %w; check the disk it is written to", err)
			q.failed, q.events = true, nil
			q.mu.Unlock()
		}
		if closing {
			return
		}
	}
}

// write writes a batch, starting the cast on the first.
func (q *Queue) write(cw **asciicast.Writer, h asciicast.Header, batch []queued) error {
	if len(batch) == 0 || q.Failed() {
		return nil
	}
	if *cw == nil {
		w, err := asciicast.NewWriter(q.out, h, time.Time{})
		if err != nil {
			return err
		}
		*cw = w
	}
	for _, e := range batch {
		(*cw).WriteEvent(e.t, e.kind, e.data)
	}
	return (*cw).Flush()
}
