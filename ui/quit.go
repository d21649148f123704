package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// The quit, shared by every client: a confirmed quit shuts every session
// down, a second one kills everything now, and the program ends once all
// settled.

type shutdownMsg struct{ err error }

// startQuit begins the quit: first request shuts everything down, a second
// one (or kill) escalates to killing every session now.
func (m *Model) startQuit(kill bool) tea.Cmd {
	if m.quitting || kill {
		var cmd tea.Cmd
		if !m.quitting {
			cmd = m.beginShutdown()
		}
		if m.killRequested {
			return cmd
		}
		m.killRequested = true
		b := m.backend
		return tea.Batch(cmd, func() tea.Msg { b.KillAll(); return nil })
	}
	return m.beginShutdown()
}

func (m *Model) beginShutdown() tea.Cmd {
	m.quitting = true
	for _, v := range m.views {
		v.modal = nil
	}
	for _, p := range m.panes {
		p.cancel() // a start still preparing is not the Manager's yet
	}
	b := m.backend
	return func() tea.Msg { return shutdownMsg{err: b.Shutdown(m.teardownCtx())} }
}

func (m *Model) handleShutdown(msg shutdownMsg) tea.Cmd {
	m.shutdownErr, m.shutDown = msg.err, true
	if m.startsPending() {
		// A start still preparing (a restore) was cancelled by the quit
		// but has not returned: the program ends once it has.
		return nil
	}
	return m.finishQuit()
}

// startsPending reports whether some pane's start has not reported back.
func (m *Model) startsPending() bool {
	for _, p := range m.panes {
		if p.phase == phaseStarting {
			return true
		}
	}
	return false
}

// finishQuit records every pane's outcome and ends the program.
func (m *Model) finishQuit() tea.Cmd {
	for _, p := range m.panes {
		if p.sess != nil {
			p.info = p.sess.Info()
		}
		m.quitResults = append(m.quitResults, resultOf(p))
		for _, f := range p.onClosed {
			f(nil)
		}
		p.onClosed = nil
	}
	for _, v := range m.views {
		v.show() // the last frame: every session settled
	}
	stopRecordings := m.stopAllRecordings() // before done: its events still go out
	m.done = true
	m.stopWatching() // the waiting watch returns, and is not re-armed
	m.cancel()       // nothing the model started is waited for any more
	var screens []interface{ Close() }
	for _, p := range m.panes {
		if p.screen != nil {
			screens = append(screens, p.screen)
		}
	}
	return tea.Sequence(func() tea.Msg {
		stopRecordings() // every recording flushed and closed before the program ends
		for _, s := range screens {
			s.Close()
		}
		return nil
	}, tea.Quit)
}

// ShutdownErr is the error of the final shutdown, if any.
func (m *Model) ShutdownErr() error { return m.shutdownErr }

func (r Result) String() string {
	s := fmt.Sprintf("%s: %s", r.Name, r.Status)
	if r.Saved != "" {
		s += ", snapshot " + r.Saved
	}
	if r.Err != nil {
		s += ": " + r.Err.Error()
	}
	return s
}
