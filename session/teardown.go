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

// teardown is the one owned teardown of a session: stop input, escalate
// signals until the process group is verified empty, close the PTY, join
// the pumps, run the after-teardown hook, and mark the session Closed.
// Every step runs whatever the previous ones returned (contract C5). It runs
// on its own bounded context, detached from every caller (contract C7).
func (s *Session) teardown(remove func()) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Bound)
	defer cancel()
	s.update(func() { s.state = Closing })
	close(s.inputDone) // stop admission of input first

	var errs []error
	if err := s.stopProcesses(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.pty.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close pty: %w", err))
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

// escalation is the signal ladder of a normal teardown: each signal, then
// how long to wait for the group to go before the next.
func (s *Session) escalation() []struct {
	sig   syscall.Signal
	grace time.Duration
} {
	return []struct {
		sig   syscall.Signal
		grace time.Duration
	}{
		{syscall.SIGHUP, s.opts.StopGrace},
		{syscall.SIGTERM, s.opts.KillGrace},
		{syscall.SIGKILL, 0},
	}
}

// stopProcesses signals the process group up the escalation until it is
// verified empty (contract C12). "Kill now" skips to SIGKILL, also midway.
func (s *Session) stopProcesses(ctx context.Context) error {
	if s.Info().Disconnected {
		// No signal can reach the sandbox and nothing can be verified:
		// the session is not reported killed, and teardown goes on.
		s.setStage("disconnected: processes not verified")
		return nil
	}
	var errs []error
	for _, step := range s.escalation() {
		if s.groupGone() {
			break
		}
		if step.sig != syscall.SIGKILL && s.killRequested() {
			continue
		}
		s.setStage(fmt.Sprintf("%v sent, waiting", signalName(step.sig)))
		if err := s.pty.Signal(step.sig); err != nil {
			errs = append(errs, err) // keep escalating: the next signal may work
		}
		var deadline <-chan time.Time
		if step.sig != syscall.SIGKILL {
			t := time.NewTimer(step.grace)
			defer t.Stop()
			deadline = t.C
		}
		if s.waitGroupGone(ctx, deadline) {
			break
		}
	}
	if !s.groupGone() {
		survivors := s.survivors()
		s.update(func() { s.survivorList = survivors })
		errs = append(errs, fmt.Errorf("process group still alive after SIGKILL%s: %w", survivorText(survivors), context.Cause(ctx)))
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

func (s *Session) killRequested() bool {
	select {
	case <-s.killNow:
		return true
	default:
		return false
	}
}

// groupGone reports whether the command was reaped and no member of its
// group is left.
func (s *Session) groupGone() bool {
	select {
	case <-s.reaped:
	default:
		return false
	}
	alive, err := s.pty.GroupAlive()
	return err == nil && !alive
}

// waitGroupGone waits until the group is gone, the deadline fires, kill-now
// is requested, or ctx ends, and reports whether the group is gone. The
// leader's reaping is an event; the rest of the group has none, so it is
// polled with a short backoff.
func (s *Session) waitGroupGone(ctx context.Context, deadline <-chan time.Time) bool {
	killNow := s.killNow
	if deadline == nil {
		killNow = nil // already at SIGKILL
	}
	select {
	case <-s.reaped:
	case <-deadline:
		return false
	case <-killNow:
		return false
	case <-ctx.Done():
		return false
	}
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if s.groupGone() {
			return true
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-deadline:
			t.Stop()
			return s.groupGone()
		case <-killNow:
			t.Stop()
			return false
		case <-ctx.Done():
			t.Stop()
			return s.groupGone()
		}
	}
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
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
