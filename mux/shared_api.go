package mux

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/parsegate"
	"github.com/sandmux/sandmux/session/vt"
)

// Update handles the shared side's own messages (starts, closes, the
// sessions' infos, resizes, the state and usage timers, the shutdown,
// recordings), which the views' model hands it; it reports whether msg
// was one of them.
func (s *Shared) Update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case infosMsg:
		return s.handleInfos(msg), true
	case startedMsg:
		cmd := s.handleStarted(msg)
		if s.shutDown && !s.done && !s.startsPending() {
			return tea.Batch(cmd, s.finishQuit()), true
		}
		return cmd, true
	case closedMsg:
		return s.handleClosed(msg), true
	case teardownMsg:
		return s.handleTeardown(msg), true
	case resizedMsg, resizePTYMsg:
		return s.handleResize(msg), true
	case rulesNowMsg:
		s.readEchoes()
		return nil, true
	case stateMsg:
		if msg.at.Equal(s.stateArmed()) { // not a timer that gave way
			s.stateTimer = nil
		}
		return nil, true // SyncStates, after the Update, looks.
	case usageTickMsg:
		return s.usageTick(msg), true
	case usageMsg:
		return s.handleUsage(msg), true
	case shutdownMsg:
		return s.handleShutdown(msg), true
	case recMsg:
		return s.handleRecord(msg), true
	}
	return nil, false
}

// Quiet reports whether msg is one of the shared side's messages that
// change nothing anyone sees unless its handler says so (Redrawn): the
// timers' and the sessions' reports, many a second for a busy pane.
func Quiet(msg tea.Msg) bool {
	switch msg.(type) {
	case infosMsg, resizedMsg, resizePTYMsg, stateMsg, rulesNowMsg, usageTickMsg, usageMsg:
		return true
	}
	return false
}

// IsUsage reports whether msg is a round of usage samples, which the
// views redraw for only while one lists every pane's CPU and memory.
func IsUsage(msg tea.Msg) bool {
	_, ok := msg.(usageMsg)
	return ok
}

// Grid is the panes in grid order. It is the shared side's own slice:
// read it, never change it.
func (s *Shared) Grid() []*Pane { return s.panes }

// Now is the shared side's clock.
func (s *Shared) Now() time.Time { return s.now() }

// Ctx is the parent of what the model starts; it ends at the quit.
func (s *Shared) Ctx() context.Context { return s.ctx }

// Backend is what sessions are started, closed and killed through.
func (s *Shared) Backend() Backend { return s.backend }

// Wake is poked by every screen that parsed output (vt.WithWake).
func (s *Shared) Wake() <-chan struct{} { return s.wake }

// Stop is closed once the quit is done: the redraw loop returns.
func (s *Shared) Stop() <-chan struct{} { return s.stop }

// TickEnd is closed once the pacing tick delivering the output of the
// panes on screen now is done; nil while none is (parsegate.Gate's).
func (s *Shared) TickEnd() <-chan struct{} { return s.gate.TickEnd() }

// Started reports whether the panes were started.
func (s *Shared) Started() bool { return s.started }

// Quitting reports whether a quit is under way; KillRequested whether it
// escalated to killing everything.
func (s *Shared) Quitting() bool      { return s.quitting }
func (s *Shared) KillRequested() bool { return s.killRequested }

// Done reports whether the quit settled and the program ends.
func (s *Shared) Done() bool { return s.done }

// Redraw notes that something some client sees changed in this Update;
// Redrawn takes that note.
func (s *Shared) Redraw() { s.redraw = true }
func (s *Shared) Redrawn() bool {
	r := s.redraw
	s.redraw = false
	return r
}

// SetEchoParsed gives the function that the goroutine which parsed a
// pane's output calls while the pane's echo is awaited, the screen's
// poke of the wake held back: the loop that runs the model delivers the
// wake there and then when the model is free (the server's), and says
// whether it did; else the pane pokes. It must never block. Panes
// started after it use it.
func (s *Shared) SetEchoParsed(fn func() bool) { s.echoParsed = fn }

// WatchNow takes the note that a key was typed into a pane or a pane has
// a new screen in this Update: the redraw loop must be watching.
func (s *Shared) WatchNow() bool {
	w := s.watchNow
	s.watchNow = false
	return w
}

// AfterUpdate is what the shared side does once any message was
// handled, whoever handled it: the states synced, the usage timer armed,
// the recordings of ended panes stopped. viewsRecorded says whether some
// client's view is recorded, which keeps the recordings' title tick going.
func (s *Shared) AfterUpdate(viewsRecorded bool) tea.Cmd {
	st := s.SyncStates()
	s.updates++
	arm := s.ArmUsage()
	s.ViewsRecorded(viewsRecorded)
	return tea.Batch(st, arm, s.SyncRecordings())
}

// Wrote notes that some pane wrote, for the usage sampling's idle rounds.
func (s *Shared) Wrote() { s.usageOutput = true }

// ViewsRecorded says whether some client's view is recorded, which keeps
// the recordings' title tick going.
func (s *Shared) ViewsRecorded(on bool) { s.rec.viewsRecorded = on }

// SetTheme gives every screen theme t, the colours the screens answer
// with, when it changed.
func (s *Shared) SetTheme(t vt.Theme) {
	if t == s.theme {
		return
	}
	s.theme = t
	for _, p := range s.panes {
		if p.screen != nil {
			p.screen.SetTheme(t)
		}
	}
}

// NewShared returns the shared side for specs' panes, not started,
// telling views of their changes. ctx is the parent of everything it
// starts; it cancels its own once the quit settled.
func NewShared(ctx context.Context, cfg Config, b Backend, views Views, specs []PaneSpec) *Shared {
	ctx, cancel := context.WithCancel(ctx)
	s := &Shared{theme: vt.DefaultTheme, ctx: ctx, cancel: cancel, cfg: cfg, backend: b, gate: parsegate.New(ctx, cfg.Parsers),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), now: time.Now, clients: views}
	for _, spec := range specs {
		s.addPane(spec)
	}
	return s
}

// SetClock replaces the shared side's clock, for a model that runs on
// a clock of its own (a test's fixed time).
func (s *Shared) SetClock(now func() time.Time) { s.now = now }
