package mux

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/parsegate"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

// ErrStartCancelled is why a start the user closed or killed ended, as
// the pane's Result says.
var ErrStartCancelled = errors.New("start cancelled")

// Pane is one sandbox's place in the grid, shared by every client: its
// session, its screen and where it is in its life.
type Pane struct {
	key  int // stable identity for messages; never reused
	spec PaneSpec
	gen  int // bumped on every (re)start; stale messages carry an old one
	gate *parsegate.Gate
	// turns are the pane's current session's at the gate: its parsing
	// turns and its paced reads.
	turns *parsegate.Turns
	// shown says whether the pane is on some client's screen, for its
	// sink's turns at the gate; the model sets it after every update.
	shown atomic.Bool
	// focused says whether the pane is some client's focus, on its
	// screen: its output is paced for the eye that reads it.
	focused atomic.Bool
	// echo says a key was typed into the pane at echoAt and what it
	// caused is not drawn yet (ui's watch.go): its output parses first and is
	// drawn at once.
	echo   atomic.Bool
	echoAt time.Time
	// wakeHeld: output parsed while the echo was awaited held its poke
	// back for the parser to deliver (wakes).
	wakeHeld atomic.Bool

	sess   Session
	screen *vt.Screen
	phase  Phase
	info   session.Info
	err    error  // why it failed, or how teardown failed
	notice string // from Prepare, e.g. a refused restore
	alert  *alert // a failed close or kill, shown until dismissed

	early []byte // input typed while starting, sent once the session is known
	// cancelStart ends the start under way (Prepare and the Manager's
	// Start); cancelling is set once x or k asked for that.
	cancelStart context.CancelCauseFunc
	cancelling  bool
	// closing: a close (x, ctl close) asked for the pane to go once its
	// teardown is done; closeKill: that close escalated to a kill.
	closing, closeKill bool
	onClosed           []func(error) // told when the close or kill ends
	ptySize            providers.Size
	lastOutput         time.Time
	// sandbox is the name the pane was opened with, which the screen
	// rules' sandboxes filter goes by (a rename does not change it).
	sandbox string
	st      paneState // its state as the user reads it (state.go)
	// usage is the last sample of its CPU and memory (usage.go); cpuBusy:
	// it used more than busyCPU of a core then, a sign of activity.
	usage   paneUsage
	cpuBusy bool
	// usageQuiet counts its rounds in a row without output, input or
	// CPU, up to usageDormant; usageWrote: output or input came since
	// its last round (usage.go).
	usageQuiet int
	usageWrote bool
	recs       paneRec // its screen's ring and recording (record.go)
}

// maxEarlyInput bounds the input kept for a pane whose start is not yet
// known to the model.
const maxEarlyInput = 64 << 10

// Messages about panes carry the pane's key and generation, so a message
// about a pane that was restarted or removed since is dropped.
type (
	startedMsg struct {
		key, gen int
		sess     Session
		notice   string
		err      error
	}
	closedMsg struct {
		key, gen int
		err      error
	}
	resizedMsg struct {
		key, gen int
		err      error
	}
)

// ID is the pane's stable id, as SANDMUX_PANE and ctl name it.
func (p *Pane) ID() string { return fmt.Sprintf("p%d", p.key) }

// start makes a fresh screen for the pane's next generation and returns
// the command that prepares and starts its session. The screen answers
// the child (cursor reports, device attributes) through the session.
func (p *Pane) start(ctx context.Context, b Backend, size providers.Size, scrollback int, wake chan<- struct{}, echoParsed func() bool) tea.Cmd {
	p.gen++
	p.phase, p.err, p.sess, p.info, p.notice, p.early = PhaseStarting, nil, nil, session.Info{}, "", nil
	old := p.screen
	// The screen exists while the pane starts; the session feeds it and
	// takes its replies once it runs.
	poke, parsed := p.wakes(wake, echoParsed)
	p.screen = vt.New(int(size.Cols), int(size.Rows), vt.WithScrollback(scrollback), vt.WithWake(poke))
	p.ptySize = size

	spec, opts := p.spec, p.spec.Options
	spec.Spec.Size = size
	if spec.Spec.Name == "" {
		spec.Spec.Name = spec.Name
	}
	if spec.Env != nil {
		spec.Spec.Env = append(append([]string(nil), spec.Spec.Env...), spec.Env(p.ID())...)
	}
	p.turns = p.gate.Turns(&p.echo, &p.shown, &p.focused)
	opts.Screen, opts.Turns, opts.Pacer, opts.Parsed = p.screen, p.turns, p.turns, parsed
	key, gen := p.key, p.gen
	// Creating the context does not block; x or k cancel it from Update.
	ctx, cancel := context.WithCancelCause(ctx)
	p.cancelStart, p.cancelling = cancel, false
	return func() tea.Msg {
		if old != nil {
			old.Close() // the old session is closed: nothing writes to it any more
		}
		var notice string
		if spec.Prepare != nil {
			var err error
			if notice, err = spec.Prepare(ctx); err != nil {
				return startedMsg{key: key, gen: gen, err: err}
			}
		}
		s, err := b.Start(ctx, spec.Provider, spec.Spec, opts)
		return startedMsg{key: key, gen: gen, sess: s, notice: notice, err: err}
	}
}

// wakes are how the pane's screen pokes the model's wake, and what its
// session calls once output parsed (session.Options.Parsed). Output
// parsed while a key's echo is awaited does not poke: the goroutine that
// parsed it delivers the wake itself once the screen is let go
// (echoParsed), and pokes only if it could not, for a poke hands the
// wake to the loop's goroutine, a thread to wake, before the parser is
// done. Without echoParsed every change pokes.
func (p *Pane) wakes(wake chan<- struct{}, echoParsed func() bool) (poke func(parsed bool), parsed func()) {
	send := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	if echoParsed == nil {
		return func(bool) { send() }, nil
	}
	echo, held := &p.echo, &p.wakeHeld
	poke = func(parsed bool) {
		if parsed && echo.Load() {
			held.Store(true)
			return
		}
		send()
	}
	parsed = func() {
		if held.Swap(false) && !echoParsed() {
			send()
		}
	}
	return poke, parsed
}

// cancel asks the start under way to stop; the pane shows it until the
// start returns. It never blocks.
func (p *Pane) cancel() {
	if p.phase == PhaseStarting && p.cancelStart != nil {
		p.cancelStart(ErrStartCancelled)
		p.cancelling = true
	}
}

// startEnded releases the start's context once its result is in.
func (p *Pane) startEnded() (cancelled bool) {
	if p.cancelStart != nil {
		p.cancelStart(nil)
	}
	cancelled = p.cancelling
	p.cancelStart, p.cancelling = nil, false
	return cancelled
}

// resizeEmulator resizes the screen now, so the next frame has the new
// size; the PTY follows later (resizePTY), debounced, as TERMINAL.md
// orders: emulator first, then the PTY. It reports whether it changed.
func (p *Pane) resizeEmulator(size providers.Size) bool {
	if p.screen == nil || size.Cols == 0 || size.Rows == 0 {
		return false
	}
	if cols, rows := p.screen.Size(); cols == int(size.Cols) && rows == int(size.Rows) {
		return false
	}
	p.screen.Resize(int(size.Cols), int(size.Rows))
	return true
}

// resizePTY returns the command that gives the PTY the screen's size, if
// it has another. The program's redraw that follows is no activity
// (status.Tracker.Resized), unless now is zero.
func (p *Pane) resizePTY(now time.Time) tea.Cmd {
	if p.sess == nil || p.screen == nil {
		return nil
	}
	cols, rows := p.screen.Size()
	size := providers.Size{Cols: uint16(cols), Rows: uint16(rows)}
	if size == p.ptySize {
		return nil
	}
	p.ptySize = size
	if p.st.track != nil && !now.IsZero() {
		p.st.track.Resized(now)
	}
	sess, key, gen := p.sess, p.key, p.gen
	return func() tea.Msg { return resizedMsg{key: key, gen: gen, err: sess.Resize(size)} }
}

// setInfo takes the session's state as the Manager reports it.
func (p *Pane) setInfo(info session.Info) {
	if info.ID == p.info.ID && info.State < p.info.State {
		// A list taken before the info already set (lists are taken in
		// commands, which end in any order): a session's state only moves
		// on, so this one is stale. Taken, it would show an exited pane
		// running again, until the next change, which may never come.
		return
	}
	p.info = info
	switch {
	case p.phase == PhaseKilled || p.phase == PhaseFailed || p.phase == PhaseCancelled:
	case info.State == session.Running:
		p.phase = PhaseRunning
	case info.State == session.Exited:
		p.phase = PhaseExited
	case info.State == session.Closing:
		p.phase = PhaseClosing
	case info.State == session.Closed:
		p.phase = PhaseClosed
	}
}

// status is the state word of the title line.
func (p *Pane) status() string { return p.describe(false) }

// describe says where the pane is, in one place for every state: while
// it lives (final false) as its title shows it, with what to do next;
// once the program ended (final true) as the exit summary does, from the
// outcome the session reported.
// closedByHangup reports whether the pane's command ended of the hang-up
// a close or quit sent it: a shell closing as asked, no death to report.
func (p *Pane) closedByHangup() bool {
	r := p.info.Reason
	return p.info.Exit.Signal == syscall.SIGHUP && (r == session.ReasonClose || r == session.ReasonShutdown)
}

func (p *Pane) describe(final bool) string {
	switch {
	case p.phase == PhaseFailed && final:
		return "failed to start"
	case p.phase == PhaseFailed:
		return fmt.Sprintf("failed: %v", p.err)
	case p.phase == PhaseCancelled:
		return "start cancelled"
	case final && p.sess == nil:
		return "not started"
	case p.info.Disconnected && final:
		return "disconnected"
	case final && p.info.ExitKnown && p.closedByHangup():
		return "closed"
	case final && p.info.ExitKnown:
		return p.info.Exit.String()
	case final && p.info.Killed:
		return "killed"
	case final:
		return p.info.State.String()
	}
	switch p.phase {
	case PhaseStarting:
		if p.cancelling {
			return "cancelling the start"
		}
		return "starting"
	case PhaseRunning:
		return "running"
	case PhaseExited:
		if p.info.Disconnected {
			return "disconnected — prefix r reconnects"
		}
		return p.info.Exit.String()
	case PhaseClosing:
		if p.info.Stage != "" {
			return "closing: " + p.info.Stage
		}
		return "closing"
	case PhaseKilled:
		return "killed"
	case PhaseClosed:
		return "closed"
	}
	return ""
}

// restartable reports whether r may start the pane again.
func (p *Pane) restartable() bool {
	switch p.phase {
	case PhaseExited, PhaseKilled, PhaseFailed, PhaseClosed, PhaseCancelled:
		return true
	}
	return false
}

// screenCols is the width of the pane's screen, or 0 with none.
func (p *Pane) screenCols() int {
	if p.screen == nil {
		return 0
	}
	cols, _ := p.screen.Size()
	return cols
}
