package mux

import (
	"errors"

	tea "charm.land/bubbletea/v2"
)

// A teardown that fails (most often its snapshot: a full disk, a store
// that cannot be written) must not pass unseen: the pane stays, its body
// replaced by the error, until the user dismisses it with prefix x (d is
// kept for detaching); and every such failure is kept for the exit code
// (contract W7).

// alert is a failed teardown the user has not dismissed yet.
type alert struct {
	what string // "close" or "kill"
	err  error
}

// teardownMsg reports the close of a pane's previous session, run before
// a restart or after its pane went away.
type teardownMsg struct {
	key  int
	err  error
	then tea.Cmd // what waited for the teardown: the restart's start
}

// failTeardown keeps a failed close or kill for the exit code and shows
// it on its pane, if the pane is still there.
func (s *Shared) failTeardown(p *Pane, what string, err error) {
	if err == nil {
		return
	}
	s.teardownErrs = append(s.teardownErrs, err)
	if p != nil {
		p.alert = &alert{what: what, err: err}
	}
}

func (s *Shared) handleTeardown(msg teardownMsg) tea.Cmd {
	var p *Pane
	for _, q := range s.panes {
		if q.key == msg.key {
			p = q
		}
	}
	s.failTeardown(p, "close", msg.err)
	return msg.then
}

// TeardownErr joins the errors of the closes and kills that failed before
// the quit (the quit's own are ShutdownErr's); sandmux exits non-zero when
// either is set.
func (s *Shared) TeardownErr() error { return errors.Join(s.teardownErrs...) }
