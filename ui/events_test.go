package ui

import (
	"slices"
	"testing"

	"github.com/sandmux/sandmux/session"
)

// The model reports what ctl events streams: a start, a state change and
// an exit, a snapshot's progress and result, attention, a pane closed,
// and clients attaching and leaving.
func TestModelReportsEvents(t *testing.T) {
	b := newFakeBackend()
	var kinds []EventKind
	listening := false // the starts' events are not the test's
	m := newTestModelWith(t, b, 2, 120, 40, func(c *Config) {
		c.Events = func(e Event) {
			if listening {
				kinds = append(kinds, e.Kind)
			}
		}
	})
	listening = true

	m.Update(AttachMsg{ID: 7, Width: 100, Height: 30})
	m.Update(DetachMsg{ID: 7})

	setSession(m, 1, func(info *session.Info) { info.State, info.ExitKnown = session.Exited, true })
	setSession(m, 1, func(info *session.Info) { info.State, info.Stage = session.Closing, "snapshot: 3 files, 1 KiB" })

	m.Grid()[1].Screen().Write("\a")
	m.Update(frameMsg{})

	press(m, "ctrl+b")
	for _, msg := range runCmd(pressX(m)) {
		_, after := m.Update(msg)
		runCmd(after)
	}

	for _, want := range []EventKind{EventAttached, EventDetached, EventState, EventExited, EventSnapshot, EventAttention, EventClosed} {
		if !slices.Contains(kinds, want) {
			t.Errorf("no %s event; got %v", want, kinds)
		}
	}
}
