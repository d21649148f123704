package mux

import (
	"testing"
	"time"

	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/status"
)

// The state timer takes the deadlines within stateSlack of the earliest
// along, so panes that go idle together are looked at, and drawn, once;
// a deadline further off keeps a timer of its own. A model whose panes
// went quiet arms none at all.
func TestStateTimerTakesNearDeadlinesAlong(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 3, Config{})
	now := muxtest.FixedNow()
	s.SetClock(func() time.Time { return now })
	for range 3 { // the starts' output goes quiet
		now = now.Add(time.Minute)
		update(s, stateMsg{at: s.stateArmed()})
	}
	if !s.stateArmed().IsZero() {
		t.Fatalf("idle panes, yet a state timer is armed for %v", s.stateArmed())
	}
	ttl := 10 * time.Minute
	for i, extra := range []time.Duration{0, stateSlack / 3, 3 * stateSlack} {
		p := s.Grid()[i]
		p.st.track.Report(status.Working, "long", ttl+extra, now)
		s.syncPane(i, p, now)
	}
	if s.SyncStates() == nil || !s.stateArmed().Equal(now.Add(ttl+stateSlack/3)) {
		t.Fatalf("armed for %v, want the second report's end, %v", s.stateArmed().Sub(now), ttl+stateSlack/3)
	}
	now = s.stateArmed()
	update(s, stateMsg{at: s.stateArmed()})
	// Both reports ended in that one look; the third's keeps its timer.
	if want := now.Add(3*stateSlack - stateSlack/3); !s.stateArmed().Equal(want) {
		t.Errorf("then armed for %v from now, want the third report's end, %v", s.stateArmed().Sub(now), want.Sub(now))
	}
}
