package vt

import (
	"io"
	"sync"
	"sync/atomic"
)

// replyQueue carries answers for the child (vt10x's cursor and status
// reports, colour queries, and the wrapper's DA/DECRQM answers) to the PTY.
// vt10x writes its replies synchronously while parsing; if that writer were
// the PTY and the child did not read its input, Write would block and the
// pane would freeze. So Write only queues, never waits, and drops a reply
// when the queue is full: a child that floods queries without reading loses
// answers it was not reading anyway.
//
// The goroutine that writes them runs only while replies are queued: a
// program asks at its start (vim, htop: the device's attributes, the
// cursor, the colours) and seldom after, and a goroutine parked for the
// pane's life, with its stack and its channel, was some 10 KiB of each
// of 48 such panes.
type replyQueue struct {
	mu      sync.Mutex
	q       [][]byte // the replies not yet written, at most max
	max     int
	running bool // a drain goroutine runs, and empties q before it ends
	dropped atomic.Uint64
	// to, once set (ReplyTo), is where replies go instead of the writer
	// the screen was made with.
	to atomic.Pointer[io.Writer]
	// start starts a goroutine that drains the queue; it starts none
	// once the Screen is closed. Write runs under the Screen's lock
	// (inside vt10x's Write or the filter's reply), as start must.
	start func()
}

// Write implements io.Writer for vt10x: it copies p (vt10x reuses nothing,
// but the filter's scratch buffer is reused) and never blocks.
func (r *replyQueue) Write(p []byte) (int, error) {
	b := append([]byte(nil), p...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.q) >= r.max {
		r.dropped.Add(1)
		return len(p), nil
	}
	r.q = append(r.q, b)
	if !r.running {
		r.running = true
		r.start()
	}
	return len(p), nil
}

// next takes the oldest queued reply; false, and the drain goroutine
// ends, once there is none.
func (r *replyQueue) next() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.q) == 0 {
		r.q, r.running = nil, false // nil: a queue once grown is let go
		return nil, false
	}
	b := r.q[0]
	r.q[0] = nil
	r.q = r.q[1:]
	return b, true
}

// drain writes queued replies to w until none is left or done closes. A
// write error (the PTY closed) does not stop it: it empties the queue
// all the same, so that nothing upstream ever waits on it.
func (r *replyQueue) drain(w io.Writer, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		b, ok := r.next()
		if !ok {
			return
		}
		// Best effort: the child may be gone; a reply it will never
		// read needs no error.
		if to := r.to.Load(); to != nil {
			_, _ = (*to).Write(b)
		} else {
			_, _ = w.Write(b)
		}
	}
}

// ReplyTo sends the screen's replies to w from now on: to the session
// that feeds the screen, which may start after the screen exists.
func (s *Screen) ReplyTo(w io.Writer) { s.replies.to.Store(&w) }
