package vt

import (
	"io"
	"sync/atomic"
)

// replyQueue carries answers for the child (vt10x's cursor and status
// reports, colour queries, and the wrapper's DA/DECRQM answers) to the PTY.
// vt10x writes its replies synchronously while parsing; if that writer were
// the PTY and the child did not read its input, Write would block and the
// pane would freeze. So Write only queues, never waits, and drops a reply
// when the queue is full: a child that floods queries without reading loses
// answers it was not reading anyway.
type replyQueue struct {
	q       chan []byte
	dropped atomic.Uint64
	// to, once set (ReplyTo), is where replies go instead of the writer
	// the screen was made with.
	to atomic.Pointer[io.Writer]
	// start starts the goroutine that drains q, at the first reply.
	// Write runs under the Screen's lock (inside vt10x's Write or the
	// filter's reply), as start must.
	start   func()
	started bool
}

// Write implements io.Writer for vt10x: it copies p (vt10x reuses nothing,
// but the filter's scratch buffer is reused) and never blocks.
func (r *replyQueue) Write(p []byte) (int, error) {
	if !r.started {
		r.started = true
		r.start()
	}
	b := append([]byte(nil), p...)
	select {
	case r.q <- b:
	default:
		r.dropped.Add(1)
	}
	return len(p), nil
}

// drain writes queued replies to w until done closes. A write error (the
// PTY closed) does not stop it: it keeps emptying the queue so that nothing
// upstream ever waits on it.
func (r *replyQueue) drain(w io.Writer, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case b := <-r.q:
			// Best effort: the child may be gone; a reply it will never
			// read needs no error.
			if to := r.to.Load(); to != nil {
				_, _ = (*to).Write(b)
			} else {
				_, _ = w.Write(b)
			}
		}
	}
}

// ReplyTo sends the screen's replies to w from now on: to the session
// that feeds the screen, which may start after the screen exists.
func (s *Screen) ReplyTo(w io.Writer) { s.replies.to.Store(&w) }
