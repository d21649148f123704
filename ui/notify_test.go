package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/status"
)

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
	turn(m)
	m.Grid()[1].Screen().Write("\x1b]9;again\x07") // still waiting: no new entry
	m.Update(frameMsg{})
	now = now.Add(status.DefaultDebounce)
	turn(m)
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

// A pane's state, once its marks settle, is in its title, and a view that
// does not focus it marks it.
func TestStateShownInTheTitle(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 2, 120, 40)
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	turn(m)
	m.Grid()[1].Screen().Write("done\a")
	m.Update(frameMsg{})
	now = now.Add(status.DefaultDebounce)
	turn(m)
	if title := m.lv().title(1, m.Grid()[1], 110); !strings.Contains(title, "waiting: rang the bell") {
		t.Errorf("title %q", title)
	}
	if !m.lv().pv(m.Grid()[1]).attention {
		t.Error("the pane that waits is not marked in the view that looks elsewhere")
	}
}
