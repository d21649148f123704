package mux

import (
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// stateTimer is the one state timer: a command waits on it for the
// earliest deadline a pane's state has, and a deadline earlier still
// moves it rather than replacing it.
//
// Replacing it cost two goroutine wake-ups: the command that gave way
// woke to end, and a worker woke to wait on the new timer. A pane with
// screen rules asks for an earlier deadline on every key typed into it
// (the rules read its screen at most every ruleEvery, so a key's echo
// sets one for the read it put off, before the idle deadline armed
// last): 10.4 to 10.7 context switches of the server a key against 4.7
// without rules (bench/keys.py, keys 150 ms apart).
type stateTimer struct {
	t *time.Timer
	// at is the deadline it fires for (UnixNano): the command reads it
	// when the timer fires, for the message it delivers, and the model
	// for stateArmed.
	at atomic.Int64
}

// armState arms the state timer for next, at now: it moves the armed
// one, when its command still waits on it (nil then), or starts one
// and returns the command that waits on it.
func (s *Shared) armState(next, now time.Time) tea.Cmd {
	if st := s.stateTimer; st != nil && st.t.Stop() {
		// Stopped before it fired: its command still waits and will take
		// the moved deadline.
		st.at.Store(next.UnixNano())
		st.t.Reset(next.Sub(now))
		return nil
	}
	// None armed, or it fired and its message is on its way: that one
	// no longer matches stateArmed, and disarms nothing.
	st := &stateTimer{t: time.NewTimer(next.Sub(now))}
	st.at.Store(next.UnixNano())
	s.stateTimer = st
	stop := s.stop
	return func() tea.Msg {
		select {
		case <-st.t.C:
			return stateMsg{at: time.Unix(0, st.at.Load())}
		case <-stop:
			st.t.Stop()
			return nil
		}
	}
}

// stateArmed is when the state timer fires; zero when none waits.
func (s *Shared) stateArmed() time.Time {
	if s.stateTimer == nil {
		return time.Time{}
	}
	return time.Unix(0, s.stateTimer.at.Load())
}
