package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/mux"
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
			m := newTestModel(t, b, 2, 120, 40)
			now := fixedNow()
			m.SetClock(func() time.Time { return now })
			m.Update(stateMsg{})
			m.Grid()[1].Screen().Write(c.bytes)
			m.Update(frameMsg{})
			now = now.Add(status.DefaultDebounce)
			m.Update(stateMsg{})
			st := m.Grid()[1].State()
			if st.State != c.want || st.Reason != c.reason {
				t.Fatalf("state %s (%q), want %s (%q)", st.State, st.Reason, c.want, c.reason)
			}
			if title := m.lv().title(1, m.Grid()[1], 110); !strings.Contains(title, string(c.want)+": "+c.reason) {
				t.Errorf("title %q", title)
			}
			attention := c.want.Attention()
			if got := m.lv().pv(m.Grid()[1]).attention; got != attention {
				t.Errorf("attention %v, want %v", got, attention)
			}
		})
	}
}

// Every client that does not focus the pane gets sandmux's own OSC 9
// (ui.notify "terminal") and a bell ("bell") when it starts waiting, once;
// the client focusing it gets nothing.
func TestNotifyReachesTheClientsLookingElsewhere(t *testing.T) {
	m, tm, out := signalsModel(t, func(c *Config) { c.Notify = NotifyTerminal | NotifyBell })
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	m.Grid()[0].Screen().Write("\x1b]9;focused\x07")
	m.Grid()[1].Screen().Write("\x1b]9;tests\u009b31m done\x07")
	m.Update(frameMsg{})
	now = now.Add(status.DefaultDebounce)
	m.Update(stateMsg{})
	m.Grid()[1].Screen().Write("\x1b]9;again\x07") // still waiting: no new entry
	m.Update(frameMsg{})
	now = now.Add(status.DefaultDebounce)
	m.Update(stateMsg{})
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if n := strings.Count(s, "\x1b]9;bpane is waiting: tests\\u009b31m done\x07"); n != 1 {
		t.Errorf("%d notifications of pane 2's entry, want 1:\n%q", n, s)
	}
	if strings.Contains(s, "]9;apane") || strings.Contains(s, "again\x07") {
		t.Errorf("a notification of the focused pane, or of no entry:\n%q", s)
	}
	if bells := strings.Count(osc.ReplaceAllString(s, ""), "\a"); bells != 1 {
		t.Errorf("%d bells, want the one of pane 2's entry", bells)
	}
}

// osc matches an OSC sequence ended by BEL, whose BEL is no bell.
var osc = regexp.MustCompile("\x1b\\][^\x07\x1b]*\x07")

// A pane the user killed, or that the quit ended, failed at their word:
// no mark, no notification.
func TestUserEndedPanesAskNothing(t *testing.T) {
	var told []Notification
	b := newFakeBackend()
	m := newTestModel(t, b, 3, 120, 40)
	m.cfg.OnNotify = func(n Notification) { told = append(told, n) }
	m.Grid()[1].phase = mux.PhaseKilled // as the kill's end sets it (prefix k)
	m.Update(stateMsg{})
	if st := m.Grid()[1].State(); st.State != status.Failed {
		t.Fatalf("the killed pane is %v", st)
	}
	if m.lv().pv(m.Grid()[1]).attention || len(told) != 0 {
		t.Errorf("a pane the user killed asked for them: mark %v, told %+v", m.lv().pv(m.Grid()[1]).attention, told)
	}
}

// The same pane dying of a signal nobody in sandmux sent asks for the user.
func TestPaneFailingOnItsOwnAsks(t *testing.T) {
	var told []Notification
	b := newFakeBackend()
	m := newTestModel(t, b, 3, 120, 40)
	m.cfg.OnNotify = func(n Notification) { told = append(told, n) }
	m.Grid()[1].phase, m.Grid()[1].info.ExitKnown = mux.PhaseExited, true // exit status 0: done
	m.Update(stateMsg{})
	if st := m.Grid()[1].State(); st.State != status.Done || !m.lv().pv(m.Grid()[1]).attention || len(told) != 1 {
		t.Errorf("a pane done on its own: %v, mark %v, told %d", st, m.lv().pv(m.Grid()[1]).attention, len(told))
	}
}

// One state timer at a time: a timer for a later deadline gives way to
// one for an earlier, and ends at once, so none pile up.
func TestStateTimerGivesWay(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	for range 3 { // the start's output goes quiet: nothing is due
		now = now.Add(time.Minute)
		m.Update(stateMsg{at: m.stateArmed})
	}
	if !m.stateArmed.IsZero() {
		t.Fatalf("test setup: a timer is armed for %v", m.stateArmed)
	}
	m.Grid()[0].st.track.Report(status.Working, "long", 10*time.Minute, now)
	m.syncPane(0, m.Grid()[0], now)
	late := m.SyncStates()
	if late == nil || !m.stateArmed.Equal(now.Add(10*time.Minute)) {
		t.Fatalf("no timer for the report's ttl (armed %v)", m.stateArmed)
	}
	m.Grid()[1].st.track.Notify("soon") // a debounce: an earlier deadline
	early := m.SyncStates()
	if early == nil || !m.stateArmed.Equal(now.Add(status.DefaultDebounce)) {
		t.Fatalf("the debounce's deadline did not replace the ttl's (armed %v)", m.stateArmed)
	}
	if msg := late(); msg != nil { // returns at once, not in ten minutes
		t.Errorf("the timer that gave way delivered %v", msg)
	}
	m.Update(stateMsg{at: now.Add(10 * time.Minute)}) // a stale tick clears nothing
	if !m.stateArmed.Equal(now.Add(status.DefaultDebounce)) {
		t.Errorf("a stale tick disarmed the timer (armed %v)", m.stateArmed)
	}
}
