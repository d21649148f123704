package snapshot

import (
	"sync"
	"time"
)

// Progress is a report on a running save, restore or verify.
type Progress struct {
	// Files counts regular files done so far.
	Files int64
	// Bytes counts file content done so far (uncompressed).
	Bytes int64
	// Path is the member being worked on, relative to the workspace root.
	Path string
	// Done is set on the last report of an operation, sent before the
	// operation returns, whether it succeeded or not.
	Done bool
}

// ProgressInterval is the least time between two progress reports.
const ProgressInterval = 100 * time.Millisecond

// reporter hands progress from the worker to a callback without ever making
// the worker wait: the worker updates a struct under a mutex and, at most
// every ProgressInterval, pokes a one-slot channel; a goroutine owned by the
// operation reads the latest state and calls the callback. A slow callback
// makes reports coarser, never the worker slower.
type reporter struct {
	fn   func(Progress)
	kick chan struct{}
	quit chan struct{}
	done chan struct{}

	mu   sync.Mutex
	cur  Progress
	next time.Time // earliest time for the next kick; worker-only
}

func newReporter(fn func(Progress)) *reporter {
	r := &reporter{fn: fn}
	if fn == nil {
		return r
	}
	r.kick = make(chan struct{}, 1)
	r.quit = make(chan struct{})
	r.done = make(chan struct{})
	go r.loop()
	return r
}

func (r *reporter) loop() {
	defer close(r.done)
	for {
		select {
		case <-r.kick:
			r.mu.Lock()
			p := r.cur
			r.mu.Unlock()
			r.fn(p)
		case <-r.quit:
			r.mu.Lock()
			p := r.cur
			r.mu.Unlock()
			p.Done = true
			r.fn(p)
			return
		}
	}
}

// file records that the worker started on path.
func (r *reporter) file(path string) {
	if r.fn == nil {
		return
	}
	r.mu.Lock()
	r.cur.Path = path
	r.mu.Unlock()
	r.poke()
}

// add records finished files and bytes.
func (r *reporter) add(files, bytes int64) {
	if r.fn == nil {
		return
	}
	r.mu.Lock()
	r.cur.Files += files
	r.cur.Bytes += bytes
	r.mu.Unlock()
	r.poke()
}

func (r *reporter) poke() {
	now := time.Now()
	if now.Before(r.next) {
		return
	}
	r.next = now.Add(ProgressInterval)
	select {
	case r.kick <- struct{}{}:
	default: // A report is already pending; it will carry the new state.
	}
}

// stop sends the final report and waits for the callback goroutine, so no
// report arrives after the operation returned.
func (r *reporter) stop() {
	if r.fn == nil {
		return
	}
	close(r.quit)
	<-r.done
}
