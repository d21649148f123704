package mux

import (
	tea "charm.land/bubbletea/v2"
)

// The quit, shared by every client: a confirmed quit shuts every session
// down, a second one kills everything now, and the program ends once all
// settled.

type shutdownMsg struct{ err error }

// StartQuit begins the quit: first request shuts everything down, a second
// one (or kill) escalates to killing every session now.
func (s *Shared) StartQuit(kill bool) tea.Cmd {
	if s.quitting || kill {
		var cmd tea.Cmd
		if !s.quitting {
			cmd = s.beginShutdown()
		}
		if s.killRequested {
			return cmd
		}
		s.killRequested = true
		b := s.backend
		return tea.Batch(cmd, func() tea.Msg { b.KillAll(); return nil })
	}
	return s.beginShutdown()
}

func (s *Shared) beginShutdown() tea.Cmd {
	s.quitting = true
	for _, p := range s.panes {
		p.cancel() // a start still preparing is not the Manager's yet
	}
	b := s.backend
	return func() tea.Msg { return shutdownMsg{err: b.Shutdown(s.teardownCtx())} }
}

func (s *Shared) handleShutdown(msg shutdownMsg) tea.Cmd {
	s.shutdownErr, s.shutDown = msg.err, true
	if s.startsPending() {
		// A start still preparing (a restore) was cancelled by the quit
		// but has not returned: the program ends once it has.
		return nil
	}
	return s.finishQuit()
}

// startsPending reports whether some pane's start is under way and has
// not reported back. A pane never started (the quit came before the
// server's start) has nothing to wait for.
func (s *Shared) startsPending() bool {
	for _, p := range s.panes {
		if p.phase == PhaseStarting && p.cancelStart != nil {
			return true
		}
	}
	return false
}

// finishQuit records every pane's outcome and ends the program.
func (s *Shared) finishQuit() tea.Cmd {
	for _, p := range s.panes {
		if p.sess != nil {
			p.info = p.sess.Info()
		}
		s.quitResults = append(s.quitResults, resultOf(p))
		for _, f := range p.onClosed {
			f(nil)
		}
		p.onClosed = nil
	}
	// The views' last frames (every session settled), and their
	// recordings stopped, before done: the events still go out.
	stopRecordings := s.stopAllRecordings(s.clients.Settled())
	s.done = true
	s.StopWatching() // the waiting watch returns, and is not re-armed
	s.cancel()       // nothing the model started is waited for any more
	var screens []interface{ Close() }
	for _, p := range s.panes {
		if p.screen != nil {
			screens = append(screens, p.screen)
		}
	}
	return func() tea.Msg {
		stopRecordings() // every recording flushed and closed before the program ends
		for _, s := range screens {
			s.Close()
		}
		return tea.QuitMsg{}
	}
}

// ShutdownErr is the error of the final shutdown, if any.
func (s *Shared) ShutdownErr() error { return s.shutdownErr }

// StopWatching makes a waiting watch return for good: the quit does,
// and so does whoever drops a model that did not quit (a test).
func (s *Shared) StopWatching() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
}
