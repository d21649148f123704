// Package parsegate orders the panes' parsing of their output: at most
// so many screens parse at once (a pane whose echo a client awaits
// parses past them), the panes on some client's screen first, with a
// share of turns for those off screen; it parses a flood's large
// slices, for the panes no client focuses, on threads of lower priority
// than the server's (background.go); and it paces the reads of panes
// that write a little at a time, so that they wake together, about once
// a frame.
//
// It owns that scheduling and nothing else: it knows no pane, screen or
// session; package session takes its turns through session.Turns and
// its waits through session.Pacer.
package parsegate

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Gate orders the panes' parsing of their output. Each session's
// consumer parses into its pane's screen on its own goroutine; with a
// hundred panes flooding, a hundred goroutines ran flat out and Go's
// scheduler served the input and the frames in turn with them, so a key
// waited behind every pane's slice. Through the gate at most width
// screens parse at a time (sandmux gives it one processor fewer than
// there are), so the input loop competes with a few parsers, not a
// hundred, and a flood leaves a core to the rest; the panes on screen are
// served first, and every backTurn-th turn goes to a pane off screen, so
// those still make progress (their screens are right when shown, their
// children are never stopped for good). A pane whose echo a client waits
// for (a key was just typed into it) does not wait at all (Turns.Take):
// a key is answered first. A parser waiting here holds one
// collector window: memory stays bounded (O8) and no byte is lost.
type Gate struct {
	mu    sync.Mutex
	free  int
	front []chan struct{} // waiting panes on screen, in order
	back  []chan struct{} // waiting panes off screen, in order
	turns int
	pace  pacing // the ticks paced reads wait for (pace.go)
	// idle: the job channels of the background workers waiting for a
	// turn's parse, the one that waited last at the end (background.go)
	idle []chan backgroundJob
	done <-chan struct{} // the workers' end (nil: only their idleness ends them)
}

// backTurn: one turn in this many goes to a pane off screen while both
// kinds wait.
const backTurn = 4

// New lets width screens parse at once (0: one per processor Go runs
// code on). Its background workers end once ctx is done (or sooner,
// idle).
func New(ctx context.Context, width int) *Gate {
	if width <= 0 {
		width = runtime.GOMAXPROCS(0)
	}
	return &Gate{free: width, pace: newPacing(), done: ctx.Done()}
}

// acquire waits for a turn; wake is the caller's own one-slot channel.
func (g *Gate) acquire(shown bool, wake chan struct{}) {
	g.mu.Lock()
	if g.free > 0 {
		g.free--
		g.mu.Unlock()
		return
	}
	if shown {
		g.front = append(g.front, wake)
	} else {
		g.back = append(g.back, wake)
	}
	g.mu.Unlock()
	<-wake
}

// release hands the turn to the next waiter, or frees it.
func (g *Gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.turns++
	var next chan struct{}
	switch {
	case len(g.back) > 0 && (len(g.front) == 0 || g.turns%backTurn == 0):
		next, g.back = g.back[0], g.back[1:]
	case len(g.front) > 0:
		next, g.front = g.front[0], g.front[1:]
	default:
		g.free++
		return
	}
	next <- struct{}{} // its one slot is empty: its owner waits for this
}

// Turns are one pane's turns at the gate, for its session (a
// session.Turns): a pane whose echo is awaited takes its turns past the
// gate, one on some client's screen waits among the front, others among
// the back.
type Turns struct {
	gate  *Gate
	echo  *atomic.Bool // a key was typed into the pane and is not yet drawn
	shown *atomic.Bool // the pane is on screen now
	// focused: the pane is some client's focus (and on its screen)
	focused *atomic.Bool
	wake    chan struct{}
	hurry   chan struct{} // one slot: a key typed or the pane shown ends a paced wait
	// answered: a turn was taken while the echo was awaited, so the read
	// it parses answered a key: the pace after it is skipped (Pace).
	answered atomic.Bool
	// passed: the turn in progress was taken past the gate (Take); only
	// the pane's parser, which holds its session's delivery, reads and
	// writes it.
	passed bool
	done   chan any // one slot: a background turn's parse ended (background.go)
	// poller is the pane's reader while it waits in PaceWith.
	poller pollWaiter
}

// Turns returns the turns of a pane whose owner sets echo (a key was
// typed into it and is not yet drawn), shown (it is on screen) and
// focused (it is some client's focus).
func (g *Gate) Turns(echo, shown, focused *atomic.Bool) *Turns {
	t := &Turns{gate: g, echo: echo, shown: shown, focused: focused, wake: make(chan struct{}, 1), hurry: make(chan struct{}, 1), done: make(chan any, 1),
		poller: pollWaiter{resume: make(chan struct{}, 1)}}
	t.poller.turns = t
	return t
}

// Take waits for a turn. A pane whose echo is awaited takes none: it
// parses at once, beside the panes whose turns are in progress. Waiting
// for one of theirs was most of a key's echo beside four flooding panes
// (a median 1.5 ms of 4, the rest the kernel's). A pane flooding as its
// echo is awaited parses past the gate only until that echo is drawn or
// given up (ui's echoWait): a frame or so of slices a key.
func (t *Turns) Take() {
	if t.echo.Load() {
		t.answered.Store(true)
		t.passed = true
		return
	}
	t.gate.acquire(t.shown.Load(), t.wake)
}

// Give hands the turn on, if Take took one.
func (t *Turns) Give() {
	if t.passed {
		t.passed = false
		return
	}
	t.gate.release()
}
