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
	// ShownPace is the wait of a pane on some client's screen: output
	// shows at least 33 times a second, smooth to the eye (a key's echo
	// is not paced). 15 ms cost 15-25 % more CPU at 16 and 48 busy panes.
	ShownPace = 30 * time.Millisecond
	// BackPace is the wait of a pane on no client's screen: its screen
	// must be right when shown, and its states and bells noticed, not
	// drawn.
	BackPace = 100 * time.Millisecond
)

// ticks releases everyone who waits for it at once, a period after the
// first of them began to wait. It arms no timer while nobody waits.
type ticks struct {
	mu   sync.Mutex
	next chan struct{} // closed at the next tick; nil while nobody waits
}

// wait returns the channel closed at the next tick, period after the
// first wait since the last.
func (t *ticks) wait(period time.Duration) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next == nil {
		ch := make(chan struct{})
		t.next = ch
		// The timer's function runs once, briefly, and owns nothing.
		time.AfterFunc(period, func() {
			t.mu.Lock()
			t.next = nil
			t.mu.Unlock()
			close(ch)
		})
	}
	return t.next
}

// pacing holds the gate's two classes of ticks.
type pacing struct{ shown, back ticks }

// next is the channel closed at the next tick of a pane's class.
func (p *pacing) next(shown bool) <-chan struct{} {
	if shown {
		return p.shown.wait(ShownPace)
	}
	return p.back.wait(BackPace)
}

// Pace waits before the pane's next read, after a small one: until the
// next tick of its class, a Hurry, or done. A pane whose echo is awaited
// does not wait.
func (t *Turns) Pace(done <-chan struct{}) {
	if t.echo.Load() {
		return
	}
	tick := t.gate.pace.next(t.shown.Load())
	select {
	case <-tick:
	case <-t.hurry:
	case <-done:
	}
}

// Hurry ends the pane's wait before its next read, or the next one if it
// is not waiting: input reached its child, or it came on screen.
func (t *Turns) Hurry() {
	select {
	case t.hurry <- struct{}{}:
	default:
	}
}
