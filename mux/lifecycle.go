package mux

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session"
)

// The panes' lives, shared by every client: start, close, kill, restart
// and the quit. Each step that blocks runs in a command and reports back
// as a message carrying the pane's key and generation.

// StartAll starts every pane, each at the size the views lay it out at
// (Views.BodySize); a pane's start is one command of the batch. After a
// quit it starts none.
func (s *Shared) StartAll() tea.Cmd {
	s.started = true
	if s.quitting {
		return nil // a quit came first: nothing is started to be torn down
	}
	cmds := make([]tea.Cmd, 0, len(s.panes))
	for i := range s.panes {
		cmds = append(cmds, s.startPane(i))
	}
	return tea.Batch(cmds...)
}

func (s *Shared) startPane(i int) tea.Cmd {
	p := s.panes[i]
	s.newTracker(p)
	ended := s.endScreen(p, "the pane restarted") // the old screen's ring and recording go with it
	cmd := p.start(s.ctx, s.backend, s.clients.BodySize(i), s.cfg.Scrollback, s.wake, s.echoParsed)
	p.screen.SetTheme(s.theme)
	s.attachRing(p)
	s.clients.PaneChanged(p, ChangeStarted)
	s.watchNow = true // the new screen's wake is seen
	return tea.Batch(ended, cmd)
}

func (s *Shared) handleStarted(msg startedMsg) tea.Cmd {
	i, p := s.paneByKey(msg.key, msg.gen)
	if p == nil {
		if msg.sess != nil {
			// The pane went away while starting: nobody else owns it.
			b, id, key := s.backend, msg.sess.ID(), msg.key
			return func() tea.Msg { return teardownMsg{key: key, err: b.Close(s.teardownCtx(), id)} }
		}
		return nil
	}
	cancelled := p.startEnded()
	if msg.err != nil && p.spec.StartHint != "" && !cancelled {
		msg.err = fmt.Errorf("%w (%s)", msg.err, p.spec.StartHint)
	}
	if done := p.spec.Started; done != nil {
		p.spec.Started = nil
		defer done(msg.err)
	}
	if msg.err != nil {
		p.phase, p.err, p.early = PhaseFailed, msg.err, nil
		if cancelled {
			p.phase = PhaseCancelled
		}
		if p.closing {
			p.closing = false
			return s.RemoveAt(i, nil)
		}
		s.emitState(i, p) // ctl events and ctl wait learn of the failure
		return nil
	}
	p.sess, p.notice = msg.sess, msg.notice
	if cancelled {
		// The start completed before its cancellation reached it: tear
		// the session down as x or k asked.
		p.early = nil
		p.setInfo(msg.sess.Info())
		p.phase = PhaseClosing
		return s.closeSession(p, !p.closing || p.closeKill)
	}
	if len(p.early) > 0 {
		_ = p.sess.Write(p.early) // Best effort, as all input: it only queues.
		p.early = nil
	}
	p.setInfo(msg.sess.Info())
	// The session parses its output from its start on: a frame may have
	// taken what it printed (a shell's prompt) before this message came,
	// when the pane had no session to ask for its output's time, and an
	// idle program prints nothing more. Its state learns of it here.
	s.FeedSignals(p, s.now())
	s.Emit(Event{Kind: EventStarted, Pane: s.InfoAt(i)})
	// The PTY was opened at the size known when the start began; the
	// layout may have changed since. What the program prints as it
	// starts is activity all the same.
	return p.resizePTY(time.Time{})
}

// infosMsg is the Manager's list of sessions, read in a command after it
// said something changed.
type infosMsg struct{ infos []session.Info }

func (s *Shared) handleInfos(msg infosMsg) tea.Cmd {
	byID := map[session.ID]session.Info{}
	for _, info := range msg.infos {
		byID[info.ID] = info
	}
	for i, p := range s.panes {
		if p.sess == nil {
			continue
		}
		if info, ok := byID[p.sess.ID()]; ok {
			was, wasStage, wasSaved, wasStatus := p.phase, p.info.Stage, p.info.Saved, p.status()
			p.setInfo(info)
			s.redraw = s.redraw || p.status() != wasStatus
			s.emitChanges(i, p, was, wasStage, wasSaved)
		}
	}
	return nil
}

// emitChanges reports what an update of the session's info changed: its
// state, a snapshot's progress (a teardown stage the workspace hook
// reports) and its result.
func (s *Shared) emitChanges(i int, p *Pane, was Phase, wasStage, wasSaved string) {
	if p.phase != was {
		s.emitState(i, p)
	}
	if st := p.info.Stage; st != wasStage && strings.HasPrefix(st, "snapshot") {
		s.Emit(Event{Kind: EventSnapshot, Pane: s.InfoAt(i), Detail: st})
	}
	if p.info.Saved != "" && p.info.Saved != wasSaved {
		s.Emit(Event{Kind: EventSnapshot, Pane: s.InfoAt(i), Detail: "saved " + p.info.Saved})
	}
}

func (s *Shared) emitState(i int, p *Pane) {
	if p.st.track != nil {
		s.syncPane(i, p, s.now()) // the event shows the state the phase gives
	}
	info := s.InfoAt(i)
	s.Emit(Event{Kind: EventPhase, Pane: info, Detail: info.Phase})
	if p.phase == PhaseExited {
		s.Emit(Event{Kind: EventExited, Pane: info})
	}
}

// handleClosed: a close (x) removes the pane; a kill (k) leaves it, showing
// that it was killed, to be restarted. A close that failed (its snapshot)
// leaves the pane too, showing why, until the user dismisses it (W6).
func (s *Shared) handleClosed(msg closedMsg) tea.Cmd {
	i, p := s.paneByKey(msg.key, msg.gen)
	if p == nil {
		s.failTeardown(nil, "close", msg.err)
		return nil
	}
	was, wasStage, wasSaved := p.phase, p.info.Stage, p.info.Saved
	p.info, p.err = p.sess.Info(), msg.err
	s.emitChanges(i, p, was, wasStage, wasSaved)
	waiters := p.onClosed
	p.onClosed = nil
	defer func() {
		for _, f := range waiters {
			f(msg.err)
		}
	}()
	if p.closing {
		p.closing, p.closeKill = false, false
		s.clients.PaneChanged(p, ChangeClosed)
		if msg.err == nil {
			return s.RemoveAt(i, nil)
		}
		p.phase = PhaseClosed
		s.failTeardown(p, "close", msg.err)
		s.emitState(i, p)
		return nil
	}
	p.phase = PhaseKilled
	s.failTeardown(p, "kill", msg.err)
	s.emitState(i, p)
	return nil
}

func resultOf(p *Pane) Result {
	r := Result{Name: p.spec.Name, Err: p.err, Saved: p.info.Saved, Status: p.describe(true)}
	if n := len(p.info.Survivors); n > 0 {
		// The status above is the command's; its processes did not all go.
		r.Status += fmt.Sprintf(", but %d of its processes survived", n)
	}
	if p.info.Err != nil && r.Err == nil {
		r.Err = p.info.Err
	}
	return r
}

// CloseAt tears pane i down: a close removes it once done, a kill
// leaves it killed. done, if set, is told how it ended.
func (s *Shared) CloseAt(i int, kill bool, done func(error)) tea.Cmd {
	p := s.panes[i]
	switch p.phase {
	case PhaseStarting:
		// Cancel the start; the pane goes (or shows the start cancelled)
		// once the start returns.
		if kill && p.closing {
			p.closeKill = true // a close escalated: kill what the start made
		}
		p.closing = p.closing || !kill
		p.cancel()
		if done != nil {
			done(nil)
		}
		return nil
	case PhaseFailed, PhaseKilled, PhaseClosed, PhaseCancelled:
		if kill {
			if done != nil {
				done(nil)
			}
			return nil
		}
		return s.RemoveAt(i, done) // nothing left to tear down
	}
	if done != nil {
		p.onClosed = append(p.onClosed, done)
	}
	if p.phase == PhaseClosing {
		// A teardown runs already: a kill escalates it, a close waits.
		if kill && !p.closeKill {
			p.closeKill = true
			b, id := s.backend, p.sess.ID()
			return func() tea.Msg { _ = b.Kill(s.teardownCtx(), id); return nil }
		}
		return nil
	}
	p.closing = !kill
	p.phase = PhaseClosing
	return s.closeSession(p, kill)
}

// closeSession tears a pane's session down in a command and reports back.
// Teardowns are never cancelled: they run to the end, quit or not.
func (s *Shared) closeSession(p *Pane, kill bool) tea.Cmd {
	b, id, key, gen := s.backend, p.sess.ID(), p.key, p.gen
	return func() tea.Msg {
		var err error
		if kill {
			err = b.Kill(s.teardownCtx(), id)
		} else {
			err = b.Close(s.teardownCtx(), id)
		}
		return closedMsg{key: key, gen: gen, err: err}
	}
}

// RemoveAt takes pane i off the grid, keeping its outcome for the exit
// summary, and closes its screen in a command.
func (s *Shared) RemoveAt(i int, done func(error)) tea.Cmd {
	p := s.panes[i]
	if p.sess != nil {
		p.info = p.sess.Info()
	}
	info := s.InfoAt(i)
	s.quitResults = append(s.quitResults, resultOf(p))
	cmds := []tea.Cmd{s.endScreen(p, "the pane closed")}
	s.panes = append(s.panes[:i], s.panes[i+1:]...)
	cmds = append(cmds, s.clients.PaneRemoved(p.key, i))
	s.Emit(Event{Kind: EventClosed, Pane: info})
	if done != nil {
		done(nil)
	}
	screen := p.screen
	return tea.Batch(append(cmds, func() tea.Msg {
		if screen != nil {
			screen.Close()
		}
		return nil
	})...)
}

// RestartAt starts pane i again; an exited session is closed first.
func (s *Shared) RestartAt(i int) tea.Cmd {
	p := s.panes[i]
	old, oldPhase := p.sess, p.phase
	p.alert = nil // restarting answers it, as dismissing does
	start := s.startPane(i)
	if old == nil || oldPhase != PhaseExited {
		return start
	}
	// An exited session still holds its PTY, and its teardown may snapshot
	// the workspace: it must settle before the new start restores into
	// the workspace or runs in it.
	b, id, key := s.backend, old.ID(), p.key
	// The start runs once the teardown was handled: the model's loop and
	// a test's run commands alike (tea.Sequence's message is Bubble
	// Tea's own, which no other loop can take apart).
	return func() tea.Msg { return teardownMsg{key: key, err: b.Close(s.teardownCtx(), id), then: start} }
}

type resizePTYMsg struct{ gen int }

func (s *Shared) handleResize(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resizePTYMsg:
		if msg.gen != s.resizeGen {
			return nil
		}
		var cmds []tea.Cmd
		for _, p := range s.panes {
			cmds = append(cmds, p.resizePTY(s.now()))
		}
		return tea.Batch(cmds...)
	case resizedMsg:
		// A failed resize of a closing or gone session is expected; the
		// pane shows its state either way.
	}
	return nil
}

// ResizePTYs debounces the PTY resizes: a terminal being dragged sends
// many sizes.
func (s *Shared) ResizePTYs() tea.Cmd {
	s.resizeGen++
	gen := s.resizeGen
	return tea.Tick(50*time.Millisecond, func(time.Time) tea.Msg { return resizePTYMsg{gen: gen} })
}

// teardownCtx is the context of a teardown: the model's values, never its
// cancellation, since a teardown runs to its end, quit or not (its
// stages are bounded by the session's graces).
func (s *Shared) teardownCtx() context.Context { return context.WithoutCancel(s.ctx) }
