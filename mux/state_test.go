package mux

import (
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
)

// The bytes a program writes drive its pane's state through the screen's
// marks, each shown once the debounce has passed, and the title says it.
func TestEscapesDriveTheState(t *testing.T) {
	for _, c := range []struct {
		name, bytes string
		want        status.State
		reason      string
	}{
		{"bell", "done\a", status.Waiting, "rang the bell"},
		{"OSC 9", "\x1b]9;Claude needs your permission\x07", status.Waiting, "Claude needs your permission"},
		{"OSC 777", "\x1b]777;notify;build;finished\x1b\\", status.Waiting, "build: finished"},
		{"progress", "\x1b]9;4;1;45\x07", status.Working, "45%"},
		{"prompt", "\x1b]133;A\x07$ \x1b]133;B\x07", status.Idle, "at the prompt"},
		{"command", "\x1b]133;C\x07", status.Working, "running a command"},
		{"command failed", "\x1b]133;C\x07oops\x1b]133;D;2\x07\x1b]133;A\x07$ ", status.Failed, "the command exited 2"},
		{"command done", "\x1b]133;C\x07\x1b]133;D;0\x07", status.Done, "the command exited 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newFakeBackend()
			s, v := newTestShared(t, b, 2, Config{})
			v.looking = s.Grid()[0]
			now := muxtest.FixedNow()
			s.SetClock(func() time.Time { return now })
			update(s, nil)
			s.Grid()[1].Screen().Write(c.bytes)
			frame(s)
			now = now.Add(status.DefaultDebounce)
			update(s, nil)
			st := s.Grid()[1].State()
			if st.State != c.want || st.Reason != c.reason {
				t.Fatalf("state %s (%q), want %s (%q)", st.State, st.Reason, c.want, c.reason)
			}
			if title := s.Grid()[1].TitleState(); !strings.Contains(title, string(c.want)+": "+c.reason) {
				t.Errorf("title's state %q", title)
			}
			attention := c.want.Attention()
			if got := v.marked[s.Grid()[1]]; got != attention {
				t.Errorf("attention %v, want %v", got, attention)
			}
		})
	}
}

// A pane the user killed, or that the quit ended, failed at their word:
// no mark, no notification.
func TestUserEndedPanesAskNothing(t *testing.T) {
	var told []Notification
	b := newFakeBackend()
	s, v := newTestShared(t, b, 3, Config{OnNotify: func(n Notification) { told = append(told, n) }})
	v.looking = s.Grid()[0]
	s.Grid()[1].phase = PhaseKilled // as the kill's end sets it (prefix k)
	update(s, nil)
	if st := s.Grid()[1].State(); st.State != status.Failed {
		t.Fatalf("the killed pane is %v", st)
	}
	if v.marked[s.Grid()[1]] || len(told) != 0 {
		t.Errorf("a pane the user killed asked for them: mark %v, told %+v", v.marked[s.Grid()[1]], told)
	}
}

// The same pane dying of a signal nobody in sandmux sent asks for the user.
func TestPaneFailingOnItsOwnAsks(t *testing.T) {
	var told []Notification
	b := newFakeBackend()
	s, v := newTestShared(t, b, 3, Config{OnNotify: func(n Notification) { told = append(told, n) }})
	v.looking = s.Grid()[0]
	s.Grid()[1].phase, s.Grid()[1].info.ExitKnown = PhaseExited, true // exit status 0: done
	update(s, nil)
	if st := s.Grid()[1].State(); st.State != status.Done || !v.marked[s.Grid()[1]] || len(told) != 1 {
		t.Errorf("a pane done on its own: %v, mark %v, told %d", st, v.marked[s.Grid()[1]], len(told))
	}
}

// One state timer at a time: an earlier deadline moves the timer armed
// for a later one, with no second command, and the command that waits
// on it delivers the moved deadline; none pile up.
func TestStateTimerMovesEarlier(t *testing.T) {
	now := muxtest.FixedNow()
	s := quietShared(t, 2, &now)
	s.Grid()[0].st.track.Report(status.Working, "long", 10*time.Minute, now)
	s.syncPane(0, s.Grid()[0], now)
	wait := s.SyncStates()
	if wait == nil || !s.stateArmed().Equal(now.Add(10*time.Minute)) {
		t.Fatalf("no timer for the report's ttl (armed %v)", s.stateArmed())
	}
	s.Grid()[1].st.track.Notify("soon") // a debounce: an earlier deadline
	if again := s.SyncStates(); again != nil || !s.stateArmed().Equal(now.Add(status.DefaultDebounce)) {
		t.Fatalf("the debounce's deadline did not move the ttl's timer (a command: %v, armed %v)", again != nil, s.stateArmed())
	}
	// The command waits the debounce (the clock's, in real time here),
	// not ten minutes, and says which deadline it came for.
	msg, ok := wait().(stateMsg)
	if !ok || !msg.at.Equal(now.Add(status.DefaultDebounce)) {
		t.Fatalf("the moved timer delivered %v, want the debounce's deadline", msg)
	}
	update(s, stateMsg{at: now.Add(10 * time.Minute)}) // a stale tick clears nothing
	if !s.stateArmed().Equal(now.Add(status.DefaultDebounce)) {
		t.Errorf("a stale tick disarmed the timer (armed %v)", s.stateArmed())
	}
	ttl := now.Add(10 * time.Minute)
	now = now.Add(status.DefaultDebounce)
	update(s, msg) // the tick it was armed for: the next timer is the ttl's
	if !s.stateArmed().Equal(ttl) {
		t.Errorf("after the debounce's tick the timer is armed for %v, want the ttl's %v", s.stateArmed(), ttl)
	}
}

// A timer that fired while its message is on its way is not moved: a new
// one is armed, and the late message disarms nothing.
func TestStateTimerFiredIsReplaced(t *testing.T) {
	now := muxtest.FixedNow()
	s := quietShared(t, 1, &now)
	first := s.armState(now, now) // due at once
	msg, ok := first().(stateMsg) // fired and received: on its way
	if !ok {
		t.Fatalf("the timer delivered %v", msg)
	}
	later := now.Add(time.Second)
	if next := s.armState(later, now); next == nil || !s.stateArmed().Equal(later) {
		t.Fatalf("a fired timer was moved, not replaced (a command: %v, armed %v)", next != nil, s.stateArmed())
	}
	update(s, msg)
	if !s.stateArmed().Equal(later) {
		t.Errorf("the fired timer's late tick disarmed the new one (armed %v)", s.stateArmed())
	}
}

// A narrowed Update (a key typed, panes' output drawn) looks at the
// states of the panes it fed alone: with 48 panes, looking at all of
// them was a third of a key's Update. The others' deadlines still come,
// with the state timer, whose message looks at every pane.
func TestNarrowedSyncLooksAtTouchedPanesOnly(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 3, Config{})
	now := muxtest.FixedNow()
	s.SetClock(func() time.Time { return now })
	update(s, nil)
	s.Grid()[1].st.track.Notify("one")
	s.Grid()[2].st.track.Notify("two")
	update(s, nil) // every pane: the timer is armed for their debounce
	armed := s.stateArmed()
	if armed.IsZero() {
		t.Fatal("test setup: no state timer for the debounce")
	}
	now = armed
	s.NarrowStates()
	s.touch(s.Grid()[2])
	s.SyncStates()
	if st := s.Grid()[2].State(); st.State != status.Waiting {
		t.Errorf("the touched pane is %s after its debounce, want waiting", st.State)
	}
	if st := s.Grid()[1].State(); st.State == status.Waiting {
		t.Error("a narrowed sync looked at a pane it did not feed")
	}
	update(s, stateMsg{at: armed})
	if st := s.Grid()[1].State(); st.State != status.Waiting {
		t.Errorf("after the state timer the other pane is %s, want waiting", st.State)
	}
}

// A screen rule reads the screen a frame took, in that frame's Update:
// the views draw first, the rules read after (SyncStates), and what they
// decide is the pane's state once the debounce has passed, as a mark's.
func TestRulesReadTheFramesScreen(t *testing.T) {
	rule, err := status.Compile(status.RuleSpec{Match: `Proceed with (\w+)\?`, State: "waiting", Reason: "asks about $1"})
	if err != nil {
		t.Fatal(err)
	}
	b := newFakeBackend()
	s, v := newTestShared(t, b, 2, Config{Rules: []*status.Rule{rule}})
	v.looking = s.Grid()[0]
	now := muxtest.FixedNow()
	s.SetClock(func() time.Time { return now })
	update(s, nil)
	p := s.Grid()[1]
	if st := p.State(); st.State == status.Waiting {
		t.Fatalf("waiting before the question: %+v", st)
	}
	now = now.Add(ruleEvery) // the start's frame read the screen at the fixed clock
	p.Screen().Write("Proceed with deploy? ")
	frame(s)
	if st := p.State(); st.State == status.Waiting {
		t.Fatalf("waiting before the debounce: %+v", st)
	}
	now = now.Add(status.DefaultDebounce)
	update(s, nil)
	if st := p.State(); st.State != status.Waiting || st.Reason != "asks about deploy" {
		t.Fatalf("state %s (%q), want waiting (asks about deploy)", st.State, st.Reason)
	}
}

// quietShared is n panes whose start's output went quiet, with no
// state timer armed, on the clock *now, which it moves on and the test
// moves after.
func quietShared(t *testing.T, n int, now *time.Time) *Shared {
	t.Helper()
	s, _ := newTestShared(t, newFakeBackend(), n, Config{})
	s.SetClock(func() time.Time { return *now })
	for range 3 {
		*now = now.Add(time.Minute)
		update(s, stateMsg{at: s.stateArmed()})
	}
	if !s.stateArmed().IsZero() {
		t.Fatalf("test setup: a timer is armed for %v", s.stateArmed())
	}
	return s
}

// A key's echo is read by the rules at once, however lately they read
// the screen: not in the Update that draws it, whose frame the read
// would hold, but in one of its own right after (TakeDeferred). Other
// output waits out ruleEvery as before.
func TestRulesReadAnEchoAtOnce(t *testing.T) {
	now := muxtest.FixedNow().Add(time.Minute)
	s, p := rulePane(t, &now)
	p.Screen().Write("working")
	frame(s) // read: a minute since the start's
	read := p.st.ruleAt
	if !read.Equal(now) || p.st.ruleDue {
		t.Fatalf("test setup: the rules read at %v, due %v", read, p.st.ruleDue)
	}
	now = now.Add(ruleEvery / 5)
	p.Screen().Write(" more")
	frame(s)
	if !p.st.ruleDue || !p.st.ruleAt.Equal(read) {
		t.Fatalf("output within ruleEvery was read (at %v, due %v)", p.st.ruleAt, p.st.ruleDue)
	}
	now = now.Add(ruleEvery / 5)
	s.Send(p, func(vt.Modes) []byte { return []byte("y") })
	p.Screen().Write("y")
	<-p.Screen().Dirty()
	s.FeedSignals(p, now) // the echo's frame, as the views take it
	later := s.TakeDeferred()
	if _, ok := later.(rulesNowMsg); !ok {
		t.Fatalf("the echo's frame put off %v, not the rules' read", later)
	}
	update(s, nil) // the end of the echo's Update
	if !p.st.ruleDue || !p.st.ruleAt.Equal(read) {
		t.Fatalf("the echo was read in the Update that drew it (at %v, due %v)", p.st.ruleAt, p.st.ruleDue)
	}
	update(s, later)
	if p.st.ruleDue || !p.st.ruleAt.Equal(now) {
		t.Errorf("the echo was not read right after (read at %v, due %v)", p.st.ruleAt, p.st.ruleDue)
	}
}

// Were the put-off read never delivered, the screen is read as any
// other once the Update that drew the echo is over: the rules do not
// stop reading it.
func TestRulesReadAnEchoNotDeliveredLater(t *testing.T) {
	now := muxtest.FixedNow().Add(time.Minute)
	s, p := rulePane(t, &now)
	s.Send(p, func(vt.Modes) []byte { return []byte("y") })
	p.Screen().Write("y")
	<-p.Screen().Dirty()
	s.FeedSignals(p, now)
	_ = s.TakeDeferred() // and dropped
	update(s, nil)
	if !p.st.ruleDue {
		t.Fatal("the echo was read in the Update that drew it")
	}
	now = now.Add(ruleEvery)
	update(s, nil) // the state timer's tick, as it would come
	if p.st.ruleDue || !p.st.ruleAt.Equal(now) {
		t.Errorf("the echo's screen was not read after its Update (read at %v, due %v)", p.st.ruleAt, p.st.ruleDue)
	}
}

// rulePane is one pane that a screen rule watches, on the clock *now.
func rulePane(t *testing.T, now *time.Time) (*Shared, *Pane) {
	t.Helper()
	rule, err := status.Compile(status.RuleSpec{Match: `Proceed with (\w+)\?`, State: "waiting"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestShared(t, newFakeBackend(), 1, Config{Rules: []*status.Rule{rule}})
	s.SetClock(func() time.Time { return *now })
	return s, s.Grid()[0]
}
