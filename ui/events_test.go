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
	m := newTestModel(t, b, 2, 120, 40)
	var kinds []EventKind
	m.cfg.Events = func(e Event) { kinds = append(kinds, e.Kind) }

	m.Update(AttachMsg{ID: 7, Width: 100, Height: 30})
	m.Update(DetachMsg{ID: 7})

	b.mu.Lock()
	s := b.sessions[1]
	s.info.State, s.info.ExitKnown = session.Exited, true
	infos := []session.Info{b.sessions[0].info, s.info}
	b.mu.Unlock()
	m.Update(infosMsg{infos: infos})

	b.mu.Lock()
	s.info.State, s.info.Stage = session.Closing, "snapshot: 3 files, 1 KiB"
	infos = []session.Info{b.sessions[0].info, s.info}
	b.mu.Unlock()
	m.Update(infosMsg{infos: infos})

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
