package parsegate

import (
	"sync"
	"time"
)

// Pacing a pane's reads. A program that redraws a little at a time (an
// agent's TUI, htop, a progress bar) writes a hundred small pieces a
// second; read as they come, 48 such panes made nearly 5,000 reads a
// second, each a wake-up of the pane's reader through Go's poller, and
// the scheduler's hand-offs cost more than the parsing. Nobody sees
// output faster than frames are drawn, so after a small read a pane's
// reader waits for the next tick of its class before it reads again, and
// then takes at once what the child wrote meanwhile (the kernel's PTY
// buffer holds it, so nothing is lost and the child is not held back at
// these rates). All the readers of a class wake on the same tick, one
// after another, rather than each on its own.
//
// A pane whose echo is awaited is not paced, and input written to a pane
// that waits (a key, a reply to the program's query) ends its wait
// (Hurry, from the pane's session): a key is answered first. A read that
// is not small (a flood) is never followed by a wait: the session hands
// it to its consumer and reads on.

const (
	// FocusPace is the wait of a pane some client has focused: its output
	// shows 40 times a second, smooth to the eye of the user who reads it
	// (a key's echo is not paced).
	FocusPace = 25 * time.Millisecond
	// glanceStride: the other panes on screen are released at every
	// glanceStride-th tick of the focused ones, on the same ticker, so
	// that one frame shows each tick.
	glanceStride = 2
	// ShownPace is the wait of a pane on some client's screen that no
	// client has focused: the grid around the pane being read, watched
	// out of the corner of the eye, shows 20 times a second. With every
	// pane on screen read every 30 ms, 16 panes scrolling a log cost the
	// server a third more CPU: most of it is their frames, each of which
	// draws every row of a pane that scrolled. (With a ticker of its own
	// the glance saved nothing once the focused pane was busy too: the
	// two tickers' frames came apart, one for each.)
	ShownPace = glanceStride * FocusPace
	// BackPace is the wait of a pane on no client's screen: its screen
	// must be right when shown, and its states and bells noticed, not
	// drawn.
	BackPace = 100 * time.Millisecond
)

// ticks releases everyone who waits for it at once, a period after the
// first of them began to wait, and runs the polls of those who wait in
// PaceWith on its ticker's goroutine. No ticker runs while nobody waits.
// Its waiters are of two tiers: those of tier 0 are released at every
// tick, those of tier 1 at every glanceStride-th.
type ticks struct {
	period  time.Duration
	mu      sync.Mutex
	armed   bool             // someone waits for the next tick
	due     time.Time        // when the next tick is: a period after the first wait since the last
	running bool             // the ticker's goroutine runs
	n       int              // the ticks since the ticker started
	next    [2]chan struct{} // each tier's, closed at its next tick; nil while nobody waits on it
	polls   [2][]*pollWaiter // each tier's, run at its next tick
	ending  chan struct{}    // closed when the polls running now are done; nil while none run
	// skipped: the next tick was put off by a period, as it would have
	// released nobody (only the glance waited, and it was not one of
	// its ticks); nudge (one slot) wakes the ticker to take it back
	// when a focused pane begins to wait.
	skipped bool
	nudge   chan struct{}
	ticked  int // ticks taken, for the tests
}

// arm sets the next tick a period from now, unless one is set, and starts
// the ticker unless it runs. Called with mu held.
func (t *ticks) arm() {
	if t.armed {
		return
	}
	t.armed = true
	t.due = time.Now().Add(t.period)
	if !t.running {
		t.running, t.n, t.skipped = true, 0, false
		if t.nudge == nil {
			t.nudge = make(chan struct{}, 1)
		}
		go t.run()
	}
}

// armFor arms the ticker for a waiter of tier: a focused pane takes
// back a tick put off for the glance. Called with mu held.
func (t *ticks) armFor(tier int) {
	t.arm()
	if tier == 0 {
		t.unskip()
	}
}

// skipEmpty puts the next tick off by a period when it would release
// nobody: only the glance waits, and it is not one of its ticks. Called
// with mu held.
func (t *ticks) skipEmpty() {
	if t.next[0] == nil && len(t.polls[0]) == 0 && !glance(t.n+1) {
		t.n++
		t.due = t.due.Add(t.period)
		t.skipped = true
	}
}

// unskip takes back the tick put off, for a focused pane that begins to
// wait, and wakes the ticker to it. Called with mu held.
func (t *ticks) unskip() {
	if !t.skipped {
		return
	}
	t.n--
	t.due = t.due.Add(-t.period)
	t.skipped = false
	select {
	case t.nudge <- struct{}{}:
	default: // a nudge is pending: the ticker reads the due again anyway
	}
}

// glance reports whether the tick n releases tier 1.
func glance(n int) bool { return n%glanceStride == 0 }

// run is the ticker: it waits for each tick that is due and ticks, and
// returns once a tick leaves nobody waiting for the next. It owns the
// polls each tick takes and nothing else. One goroutine for all the
// ticks of a busy spell, rather than a timer's goroutine for each: the
// polls parse and deliver output, deep in calls, and each new goroutine
// grew its stack from 2 KiB again, copying it and reading the binary's
// function tables for every frame on it, 43 times a second. A tick
// whose polls outlast a period holds back the next, and the readers
// waiting in Pace for it, until they end: that is a machine too loaded
// to parse its panes within a period, where a tick on time would have
// waited for a processor behind the polls anyway.
func (t *ticks) run() {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		t.mu.Lock()
		if !t.armed {
			t.running = false
			t.mu.Unlock()
			return
		}
		t.skipEmpty()
		wait := time.Until(t.due)
		t.mu.Unlock()
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-t.nudge:
				timer.Stop()
				continue // a tick put off was taken back: wait for it instead
			}
		}
		t.tick()
	}
}

// wait returns the channel closed at the next tick of tier.
func (t *ticks) wait(tier int) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next[tier] == nil {
		t.next[tier] = make(chan struct{})
	}
	t.armFor(tier)
	return t.next[tier]
}

// add has w polled at the next tick of tier.
func (t *ticks) add(w *pollWaiter, tier int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.polls[tier] = append(t.polls[tier], w)
	t.armFor(tier)
}

// tick releases the waiters and runs the polls, one after another on
// this goroutine: the readers they stand for stay parked, so a tick of
// 48 busy panes wakes one goroutine, not 48, each of which parked again
// after its read and sent its thread looking for work.
func (t *ticks) tick() {
	t.mu.Lock()
	t.armed, t.skipped = false, false
	t.n++
	t.ticked++
	tiers := 1
	if glance(t.n) {
		tiers = 2
	}
	var chs [2]chan struct{}
	polls := t.polls[0] // the focused panes first; the tier's slice is the tick's now
	t.polls[0] = nil
	for k := range tiers {
		chs[k], t.next[k] = t.next[k], nil
	}
	if tiers == 2 {
		polls = append(polls, t.polls[1]...)
		t.polls[1] = nil
	}
	if t.next[1] != nil || len(t.polls[1]) > 0 {
		t.arm() // the glance waits for a later tick
	}
	var ending chan struct{}
	if len(polls) > 0 {
		ending = make(chan struct{})
		t.ending = ending
	}
	t.mu.Unlock()
	for _, ch := range chs {
		if ch != nil {
			close(ch)
		}
	}
	for _, w := range polls {
		if w.run() {
			// At the next tick of the pane's class now: a pane that
			// lost a client's focus while busy slows down with it.
			w.turns.gate.pace.class(w.turns).add(w)
		}
	}
	if ending != nil {
		t.mu.Lock()
		t.ending = nil
		t.mu.Unlock()
		close(ending)
	}
}

// runningEnd is the channel closed when the polls running now are done,
// or nil.
func (t *ticks) runningEnd() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ending
}

// TickEnd is closed once the tick of the panes on screen that is
// delivering their output now has delivered it all; nil while none is.
// A frame that would show the first of them can wait for it and show
// them all: one frame a tick, not one for the first pane and another
// for the rest.
func (g *Gate) TickEnd() <-chan struct{} { return g.pace.screen.runningEnd() }

// pacing holds the gate's ticks: those of the panes on screen (the
// focused ones tier 0, the others tier 1) and those of the rest.
type pacing struct{ screen, back ticks }

func newPacing() pacing {
	return pacing{screen: ticks{period: FocusPace}, back: ticks{period: BackPace}}
}

// paced is a pane's class: the ticks it waits for, and its tier there.
type paced struct {
	ticks *ticks
	tier  int
}

func (c paced) wait() <-chan struct{} { return c.ticks.wait(c.tier) }
func (c paced) add(w *pollWaiter)     { c.ticks.add(w, c.tier) }

// class is a pane's class: focused by some client, on some client's
// screen, or on none.
func (p *pacing) class(t *Turns) paced {
	switch {
	case t.focused.Load():
		return paced{&p.screen, 0}
	case t.shown.Load():
		return paced{&p.screen, 1}
	}
	return paced{&p.back, 0}
}

// pollWaiter is one pane's reader waiting in PaceWith: the tick runs its
// poll while it stays parked.
type pollWaiter struct {
	mu     sync.Mutex // held while poll runs, and by the waiter to leave
	active bool       // the waiter waits: its poll may run
	queued bool       // in some ticks' polls: a waiter that left and came back is not added twice
	poll   func() bool
	resume chan struct{} // one slot: poll said the reader reads on itself
	turns  *Turns        // whose reader it is: its class says which ticks poll it next
}

// run polls once for the tick; true: poll again at the next one.
func (w *pollWaiter) run() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queued = false
	if !w.active {
		return false // it left (a Hurry, done)
	}
	if w.poll() {
		w.queued = true
		return true
	}
	w.active = false
	select {
	case w.resume <- struct{}{}:
	default:
	}
	return false
}

// Pace waits before the pane's next read, after a small one: until the
// next tick of its class, a Hurry, or done. A pane whose echo is awaited
// does not wait.
func (t *Turns) Pace(done <-chan struct{}) {
	if t.unpaced() {
		return
	}
	tick := t.gate.pace.class(t).wait()
	select {
	case <-tick:
	case <-t.hurry:
	case <-done:
	}
}

// PaceWith waits as Pace does, but at each tick runs poll on the tick's
// goroutine instead of waking the caller: poll reads what the child wrote
// meanwhile without waiting and delivers it, and says whether the pane
// waits for the next tick (true) or its reader reads on itself (false:
// nothing was there to read, or too much to deliver there). It returns
// once poll said false, at a Hurry, or done; a poll that runs then has
// finished first, and none runs after. The caller's state that poll uses
// is its again from then on.
func (t *Turns) PaceWith(done <-chan struct{}, poll func() bool) {
	if t.unpaced() {
		return
	}
	w := &t.poller
	w.mu.Lock()
	w.active, w.poll = true, poll
	select {
	case <-w.resume: // a stale resume from a poll that ended a wait before
	default:
	}
	add := !w.queued
	w.queued = true
	w.mu.Unlock()
	if add {
		t.gate.pace.class(t).add(w)
	}
	select {
	case <-w.resume:
	case <-t.hurry:
	case <-done:
	}
	w.mu.Lock()
	w.active, w.poll = false, nil
	w.mu.Unlock()
}

// unpaced: no pace while a key's echo is awaited, nor after a read that
// answered one (its turn was taken while the echo was awaited): the echo
// was drawn as it parsed, and a pane whose child is idle again would only
// wait out a tick, a timer set and a thread woken for every key, to read
// nothing.
func (t *Turns) unpaced() bool {
	return t.answered.Swap(false) || t.echo.Load()
}

// Hurry ends the pane's wait before its next read, or the next one if it
// is not waiting: input reached its child, or it came on screen.
func (t *Turns) Hurry() {
	select {
	case t.hurry <- struct{}{}:
	default:
	}
}
