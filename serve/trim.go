package serve

import (
	"context"
	"log"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/pagetrim"
)

// trimOnAttach lets go of the binary's pages that only one-off work
// touched (package pagetrim), and of the heap that work freed, a second
// into each client's attachment, over any wire: by then the server has
// drawn the client's first frame, and what it did since the last
// attachment (a config's check, the panes' starts, an SSH handshake, the
// attachment's own start) is behind it. It costs a collection and about
// a millisecond, and the pages the server goes on using come back in on
// their next touch.
type trimOnAttach struct {
	attach.Attacher
	trim func() // trimAfterWork with the server's logger
}

// trimAfter is how far into an attachment the server trims: its start
// (a frame of every pane, starts the attach set off) takes
// milliseconds.
const trimAfter = time.Second

func (t trimOnAttach) Attach(ctx context.Context, st attach.Stream) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { t.trimLater(done) })
	defer wg.Wait()
	defer close(done)
	return t.Attacher.Attach(ctx, st)
}

// trimLater trims once the attachment ran trimAfter, unless done closed
// first.
func (t trimOnAttach) trimLater(done <-chan struct{}) {
	timer := time.NewTimer(trimAfter)
	defer timer.Stop()
	select {
	case <-timer.C:
		t.trim()
	case <-done:
	}
}

// trimPages drops the binary's pages not in use; failing, it logs why
// and the process holds them as it did.
func trimPages(logger *log.Logger) {
	if _, err := pagetrim.Drop(); err != nil {
		logger.Print(err)
	}
}

// trimAfterWork is the trim after a burst of work (a client's
// attachment, a quiet spell's end): the heap's free pages first (a
// collection, which also halves the stacks the burst grew and left idle,
// then every free page returned), then the binary's pages, which the
// collection's walk of the stacks touched. An idle server collects
// nothing but every two minutes, and returns free pages slowly, so what
// a burst freed stayed resident: 32 idle shells' server held 0.3 and
// 0.8 MB less after a quiet spell's trim, in two runs, and 0.5 and 0.9
// MB less 14 s in with the attachment's.
func trimAfterWork(logger *log.Logger) {
	debug.FreeOSMemory()
	trimPages(logger)
}

// quietTrim lets go of the binary's pages again, and of the heap's free
// pages (trimAfterWork), each time the server has been quiet for a while:
// no message for its model (a key, a frame of output, a command, a
// timer) in quietAfter. A server is left running for hours and mostly
// waits, and what its last burst of work touched
// (the frames of a burst of output, a state's redraw, a command) is
// not needed until the next. 32 idle shells' server held 15-16 MB, 5.5
// to 6.5 MB of it the binary's pages, 10.1 MB and 0.8 MB after a trim.
// The trim costs 0.4 ms (reading /proc/self/smaps); the first key after
// it faults its echo's code back, some milliseconds (2.9 and 3.8 ms
// against 0.2-0.4 for a key 0.3 s later, in two of three tries; the
// build before was as slow in one of three), which is why the spell is
// long: a pause to think at a quiet prompt does not pay it, a server
// left waiting does, once.
//
// It never ticks while the server waits: after a trim it sleeps until
// the next message (Touch) and a whole spell after it. While the
// server is busy it looks once a spell.
type quietTrim struct {
	after time.Duration
	trim  func()
	// retrim, if set, runs after each collection while the server stays
	// parked (watchGC): the binary's pages only, which a collection
	// brings back, not the heap's, whose return is a collection.
	retrim func()
	// parks counts the parkings: a collection's watch from one before
	// the last ends there.
	parks atomic.Uint64
	// seen counts the messages delivered; parked says run sleeps until
	// the next one, which pokes it (one slot) as it clears parked.
	seen   atomic.Uint64
	parked atomic.Bool
	poke   chan struct{}
}

// quietAfter is the spell with no message after which the server trims:
// an idle server's last message is a usage round, at most 16 s after the
// one before (package mux), so it trims some 30 s after that.
const quietAfter = 30 * time.Second

// newQuietTrim trims with trim after each quiet spell and, while parked,
// with retrim (nil: none) after each collection.
func newQuietTrim(after time.Duration, trim, retrim func()) *quietTrim {
	return &quietTrim{after: after, trim: trim, retrim: retrim, poke: make(chan struct{}, 1)}
}

// Touch counts a message; the server's filter calls it on every one, on
// the delivering goroutine, so it only adds and, after a trim, pokes.
func (q *quietTrim) Touch() {
	q.seen.Add(1)
	if q.parked.Load() && q.parked.CompareAndSwap(true, false) {
		select {
		case q.poke <- struct{}{}:
		default:
		}
	}
}

// filter is the server's filter next (nil for none) that Touches first.
func (q *quietTrim) filter(next func(tea.Model, tea.Msg) tea.Msg) func(tea.Model, tea.Msg) tea.Msg {
	return func(m tea.Model, msg tea.Msg) tea.Msg {
		q.Touch()
		if next == nil {
			return msg
		}
		return next(m, msg)
	}
}

// run trims after every quiet spell until ctx ends.
func (q *quietTrim) run(ctx context.Context) {
	timer := time.NewTimer(q.after)
	defer timer.Stop()
	defer q.parks.Add(1) // a collection's watch ends with the run
	for {
		n := q.seen.Load()
		timer.Reset(q.after)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if q.seen.Load() != n {
			continue // not quiet: look again a spell from now
		}
		q.trim()
		q.parked.Store(true)
		// A message between the look and parking found parked unset
		// and poked nothing: take the parking back and start a spell.
		if q.seen.Load() != n && q.parked.CompareAndSwap(true, false) {
			continue
		}
		q.watchGC(q.parks.Add(1))
		select {
		case <-ctx.Done():
			return
		case <-q.poke:
		}
	}
}

// gcSentinel is what a collection frees to run afterGC: it holds a
// pointer, so it is not batched with other tiny objects, whose block may
// outlive a collection.
type gcSentinel struct{ _ *int }

// watchGC has the next collection run afterGC for parking park. Go
// collects a process every two minutes however idle, and the
// collection's walk of the stacks and the binary's tables brought back
// megabytes of its pages, which a server left waiting then held until
// its next message: 32 idle shells' server held 5.3 MB of them four
// minutes in, 1.9 MB with this.
func (q *quietTrim) watchGC(park uint64) {
	if q.retrim == nil {
		return
	}
	runtime.AddCleanup(new(gcSentinel), func(q *quietTrim) { q.afterGC(park) }, q)
}

// afterGC runs on the runtime's cleanup goroutine after a collection:
// while the server stays parked since parking park, it watches the next
// collection (first, so one during the trim is seen too) and trims the
// pages again; else the watch ends here.
func (q *quietTrim) afterGC(park uint64) {
	if !q.parked.Load() || q.parks.Load() != park {
		return
	}
	q.watchGC(park)
	q.retrim()
}
