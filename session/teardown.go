package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/sandmux/sandmux/providers"
)

const sigKill = syscall.SIGKILL

// TeardownError is a failure of some step of a session's teardown. Steps
// are independent (contract C5): it may hold several errors joined.
type TeardownError struct {
	ID   ID
	Name string
	Err  error
}

func (e *TeardownError) Error() string {
	return fmt.Sprintf("tear down session %q: %v", e.Name, e.Err)
}

func (e *TeardownError) Unwrap() error { return e.Err }

// ErrTeardownTimeout is returned to a caller whose wait for a teardown
// passed the session's bound; the teardown goes on, owned by the Manager
// (contract C9).
var ErrTeardownTimeout = errors.New("teardown did not finish in time; it continues in the background")

// killWait bounds the SIGKILL stage: how long teardown waits after SIGKILL
// for the group to be verified empty before it closes the PTY anyway.
const killWait = 5 * time.Second

// callJoinBound bounds the wait, once the PTY is closed, for the provider
// calls that teardown gave up on: closing the transport is what ends them.
const callJoinBound = 2 * time.Second

// teardown is the one owned teardown of a session: stop input, escalate
// signals until the process group is verified empty, close the PTY, join
// the provider calls it gave up on and the pumps, run the after-teardown
// hook, and mark the session Closed. Every step runs whatever the previous
// ones returned (contract C5), and every provider call in it is bounded by
// its stage (C15). It runs on its own bounded context, detached from every
// caller (contract C7).
func (s *Session) teardown(remove func()) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Bound)
	defer cancel()
	s.update(func() { s.state = Closing })
	s.closeInput() // stop admission of input first

	var errs []error
	if err := s.stopProcesses(ctx); err != nil {
		errs = append(errs, err)
	}
	// Close tears the transport down: a provider call stuck on it returns.
	if err := s.pty.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close pty: %w", err))
	}
	if !s.calls.join(callJoinBound, s.adopt) {
		errs = append(errs, fmt.Errorf("a provider call did not return within %v of closing the pty; it is left to finish", callJoinBound))
	}
	s.setStage("flushing output")
	s.joinPumps(ctx)
	close(s.tornDown)

	if hook := s.opts.AfterTeardown; hook != nil {
		// The hook (a snapshot) has bounds of its own and must finish
		// durably even when the processes took the whole bound.
		saved, err := hook(context.WithoutCancel(ctx), s.Info(), s.setStage)
		if err != nil {
			errs = append(errs, err)
		}
		s.update(func() { s.saved = saved })
	}
	var err error
	if len(errs) > 0 {
		err = &TeardownError{ID: s.id, Name: s.name, Err: errors.Join(errs...)}
	}
	remove()
	s.update(func() { s.state, s.stage, s.err = Closed, "", err })
	close(s.done)
}

// joinPumps waits for the reader, consumer, writer and waiter. Closing the
// PTY ended the reader, and so the consumer; if something is still stuck
// when the bound passes, cancelling the run context frees it.
func (s *Session) joinPumps(ctx context.Context) {
	joined := make(chan struct{})
	go func() {
		s.pumps.Wait()
		close(joined)
	}()
	select {
	case <-joined:
	case <-ctx.Done():
		s.cancelRun()
		<-joined
	}
	s.cancelRun()
}

// stage is one rung of the signal ladder: a signal, and how long to wait,
// the signal's delivery included, for the group to go before the next.
type stage struct {
	sig   syscall.Signal
	grace time.Duration
}

// escalation is the signal ladder of a normal teardown.
func (s *Session) escalation() []stage {
	return []stage{
		{syscall.SIGHUP, s.opts.StopGrace},
		{syscall.SIGTERM, s.opts.KillGrace},
		{syscall.SIGKILL, killWait},
	}
}

// stopProcesses signals the process group up the escalation until it is
// verified empty (contract C12). "Kill now" skips to SIGKILL, also midway.
// A stage whose signal is not delivered within its grace moves on (C15).
func (s *Session) stopProcesses(ctx context.Context) error {
	if s.Info().Disconnected {
		// No signal can reach the sandbox and nothing can be verified:
		// the session is not reported killed, and teardown goes on.
		s.setStage("disconnected: processes not verified")
		return nil
	}
	var errs []error
	gone := false
	for _, st := range s.escalation() {
		if st.sig != syscall.SIGKILL && s.killRequested() {
			continue
		}
		if gone = s.runStage(ctx, st, &errs); gone {
			break
		}
	}
	if !gone {
		// The group may have gone just as the last stage ended.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lastLook)
		gone = s.groupGone(lctx)
		cancel()
	}
	if !gone {
		survivors := s.survivors()
		s.update(func() { s.survivorList = survivors })
		errs = append(errs, fmt.Errorf("process group still alive after SIGKILL, or not verified gone within %v%s", killWait, survivorText(survivors)))
		return errors.Join(errs...)
	}
	s.update(func() { s.killed = true; s.stage = "processes gone" })
	// Signal errors are moot once the group is verified gone (e.g. it
	// vanished between the check and the signal).
	return nil
}

// survivors names the processes left, where the provider can.
func (s *Session) survivors() []providers.Process {
	if l, ok := s.pty.(providers.SurvivorLister); ok {
		return l.Survivors()
	}
	return nil
}

// maxNamed bounds how many survivors an error names.
const maxNamed = 5

// survivorText is ", survivors: pid 12 (sleep 1000), …" or "".
func survivorText(procs []providers.Process) string {
	if len(procs) == 0 {
		return ""
	}
	names := make([]string, 0, maxNamed+1)
	for i, p := range procs {
		if i == maxNamed {
			names = append(names, fmt.Sprintf("and %d more", len(procs)-maxNamed))
			break
		}
		names = append(names, p.String())
	}
	return "; survivors: " + strings.Join(names, ", ")
}

// lastLook bounds the final check that the group is gone.
const lastLook = time.Second

// runStage sends one signal and waits out its grace for the group to go,
// and reports whether it did. The signal's delivery counts against the
// grace: a provider that does not return in time is left behind, owned,
// and the ladder goes on. The stage's context carries the grace, so that
// every wait in it ends with it.
func (s *Session) runStage(ctx context.Context, st stage, errs *[]error) bool {
	ctx, cancel := context.WithTimeout(ctx, st.grace)
	defer cancel()
	abort := s.killNow
	if st.sig == syscall.SIGKILL {
		abort = nil // already at SIGKILL
	}
	if s.groupGone(ctx) {
		return true
	}
	name := providers.SignalName(st.sig)
	s.setStage(fmt.Sprintf("%s sent, waiting", name))
	err, ok := s.calls.do(ctx, abort, func() error { return s.pty.Signal(st.sig) })
	switch {
	case !ok:
		*errs = append(*errs, fmt.Errorf("%s: no answer from the sandbox in time; moved on", name))
		return false
	case err != nil:
		*errs = append(*errs, err) // keep escalating: the next signal may work
	}
	return s.waitGroupGone(ctx, abort)
}

func (s *Session) killRequested() bool {
	select {
	case <-s.killNow:
		return true
	default:
		return false
	}
}

// groupGone reports whether the command was reaped and no member of its
// group is left; a GroupAlive that does not answer before ctx ends counts
// as alive.
func (s *Session) groupGone(ctx context.Context) bool {
	select {
	case <-s.reaped:
	default:
		return false
	}
	alive, err, ok := s.calls.groupAlive(ctx, s.pty)
	return ok && err == nil && !alive
}

// waitGroupGone waits until the group is gone, abort (kill-now) closes, or
// ctx (the stage's) ends, and reports whether the group is gone. The
// leader's reaping is an event; the rest of the group has none, so it is
// polled with a short backoff.
func (s *Session) waitGroupGone(ctx context.Context, abort <-chan struct{}) bool {
	select {
	case <-s.reaped:
	case <-abort:
		return false
	case <-ctx.Done():
		return false
	}
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if s.groupGone(ctx) {
			return true
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-abort:
			t.Stop()
			return false
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}

// reportMargin is how long past its bound a caller waits for a teardown,
// so that a teardown which gave up at the bound (its own context ended)
// can still close, join and report why, instead of the caller seeing only
// a timeout.
const reportMargin = time.Second

// await waits for the session's teardown on behalf of one caller. It keeps
// waiting when ctx is cancelled (contract C1) but not past the session's
// bound (C9); it returns ctx's cause first when ctx was cancelled (C2),
// with the teardown's own error joined after it (C3), and the teardown's
// error unchanged otherwise (C4).
func (s *Session) await(ctx context.Context) error {
	bound := time.NewTimer(s.opts.Bound + reportMargin)
	defer bound.Stop()
	var err error
	select {
	case <-s.tornDown:
		<-s.done // the hook writes durably; it is never abandoned
		err = s.Info().Err
	case <-bound.C:
		err = fmt.Errorf("session %q: %w", s.name, ErrTeardownTimeout)
	}
	if ctx.Err() != nil {
		return errors.Join(context.Cause(ctx), err)
	}
	return err
}
