package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// TestContract_C1_CleanupSettlesBeforeCallerReturns: the caller's context
// is cancelled while the teardown waits out its graces: the caller keeps
// waiting and returns only when the session is closed.
func TestContract_C1_CleanupSettlesBeforeCallerReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey[syscall.SIGHUP] = false // needs SIGTERM, after StopGrace
		m := managerWith(f)
		s := start(t, m, testOpts)
		ctx, cancel := context.WithCancel(context.Background())
		returned := make(chan error)
		go func() { returned <- m.Close(ctx, s.ID()) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case <-returned:
			t.Fatal("Close returned when its context was cancelled, before cleanup finished")
		default:
		}
		err := <-returned
		if !isClosed(s.Done()) {
			t.Error("Close returned before the session was closed")
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Close = %v, want context.Canceled", err)
		}
		m.Wait()
	})
}

// TestContract_C2_FirstCauseWins: the cancellation that started the cleanup
// is what the caller returns, even if another follows.
func TestContract_C2_FirstCauseWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		start(t, m, testOpts)
		ctx, cancel := context.WithCancelCause(context.Background())
		first := errors.New("received SIGTERM")
		cancel(first)
		cancel(errors.New("received SIGINT"))
		err := m.Shutdown(ctx)
		if !errors.Is(err, first) || !strings.HasPrefix(err.Error(), first.Error()) {
			t.Errorf("Shutdown = %v, want the first cause %q first", err, first)
		}
		m.Wait()
	})
}

// TestContract_C3_CleanupFailureNeverReplacesCancellation: cleanup fails
// after the caller was cancelled: the cause comes first, the cleanup error
// is joined after it and reachable with errors.As.
func TestContract_C3_CleanupFailureNeverReplacesCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.closeErr = errors.New("pty close failed")
		m := managerWith(f)
		s := start(t, m, testOpts)
		ctx, cancel := context.WithCancelCause(context.Background())
		cause := errors.New("user quit")
		cancel(cause)
		err := m.Close(ctx, s.ID())
		var te *TeardownError
		if !errors.Is(err, cause) || !strings.HasPrefix(err.Error(), cause.Error()) {
			t.Errorf("Close = %q, want the cause first", err)
		}
		if !errors.As(err, &te) || !errors.Is(te, f.closeErr) {
			t.Errorf("Close = %v, want the cleanup error joined as a *TeardownError", err)
		}
		m.Wait()
	})
}

// TestContract_C4_CleanupErrorsSurfaceUnchanged: with no cancellation the
// caller gets the teardown's own error.
func TestContract_C4_CleanupErrorsSurfaceUnchanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.closeErr = errors.New("pty close failed")
		m := managerWith(f)
		s := start(t, m, testOpts)
		err := m.Close(context.Background(), s.ID())
		var te *TeardownError
		if !errors.As(err, &te) || !errors.Is(err, f.closeErr) || te.Name != t.Name() {
			t.Errorf("Close = %v, want a *TeardownError wrapping %v", err, f.closeErr)
		}
		if s.Info().Err == nil {
			t.Error("Info().Err is nil after a failed teardown")
		}
		m.Wait()
	})
}

// TestContract_C5_TeardownStepsAreIndependent: a refused signal and a
// failing close do not skip escalation, joining the goroutines or the hook.
func TestContract_C5_TeardownStepsAreIndependent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey[syscall.SIGHUP] = false
		f.signalErr = map[syscall.Signal]error{syscall.SIGHUP: errors.New("EPERM")}
		f.closeErr = errors.New("close failed")
		m := managerWith(f)
		hookRan := false
		opts := testOpts
		opts.AfterTeardown = func(context.Context, Info, func(string)) (string, error) { hookRan = true; return "", nil }
		s := start(t, m, opts)
		err := m.Close(context.Background(), s.ID())
		if got := f.sentSignals(); !slices.Equal(got, []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM}) {
			t.Errorf("signals = %v, want SIGHUP then SIGTERM", got)
		}
		if !hookRan || !isClosed(s.Done()) || !s.Info().Killed {
			t.Errorf("hook ran %v, closed %v, killed %v: a failed step skipped the rest", hookRan, isClosed(s.Done()), s.Info().Killed)
		}
		if !errors.Is(err, f.closeErr) {
			t.Errorf("Close = %v, want the close error", err)
		}
		m.Wait()
	})
}

// TestContract_C6_RepeatedRequestsAreAbsorbed: two Closes, a Kill-less
// Shutdown: one teardown (one SIGHUP), every caller waits for it.
func TestContract_C6_RepeatedRequestsAreAbsorbed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey[syscall.SIGHUP] = false
		m := managerWith(f)
		s := start(t, m, testOpts)
		results := make(chan bool, 3)
		for _, call := range []func() error{
			func() error { return m.Close(context.Background(), s.ID()) },
			func() error { return m.Close(context.Background(), s.ID()) },
			func() error { return m.Shutdown(context.Background()) },
		} {
			go func() { _ = call(); results <- isClosed(s.Done()) }()
		}
		for range 3 {
			if !<-results {
				t.Error("a caller returned before the teardown settled")
			}
		}
		if got := f.sentSignals(); !slices.Equal(got, []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM}) {
			t.Errorf("signals = %v: more than one teardown ran", got)
		}
		m.Wait()
	})
}

// TestContract_C7_TeardownCannotBeAbandoned: a teardown whose caller gave up
// at its bound still completes, and Shutdown finds and waits for it.
func TestContract_C7_TeardownCannotBeAbandoned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.closeGate = make(chan struct{})
		m := managerWith(f)
		opts := testOpts
		opts.Bound = 5 * time.Second
		s := start(t, m, opts)
		if err := m.Close(context.Background(), s.ID()); !errors.Is(err, ErrTeardownTimeout) {
			t.Fatalf("Close = %v, want a timeout at the bound", err)
		}
		shut := make(chan error)
		go func() { shut <- m.Shutdown(context.Background()) }()
		synctest.Wait()
		close(f.closeGate) // the provider's close finally returns
		<-shut
		if !isClosed(s.Done()) {
			t.Error("Shutdown returned without waiting for the teardown already in flight")
		}
		m.Wait()
	})
}

// TestContract_C8_BoundsArePerSession: one stuck session does not stop the
// others from finishing; results come back in session order.
func TestContract_C8_BoundsArePerSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck, ok1, ok2 := newFakePTY(), newFakePTY(), newFakePTY()
		stuck.closeGate = make(chan struct{})
		ok2.closeErr = errors.New("third failed")
		m := managerWith(stuck, ok1, ok2)
		opts := testOpts
		opts.Bound = 10 * time.Second
		a, b, c := start(t, m, opts), start(t, m, opts), start(t, m, opts)
		t0 := time.Now()
		err := m.Shutdown(context.Background())
		if d := time.Since(t0); d != opts.Bound+reportMargin {
			t.Errorf("Shutdown took %v, want the per-session bound %v", d, opts.Bound+reportMargin)
		}
		if !isClosed(b.Done()) || !isClosed(c.Done()) || isClosed(a.Done()) {
			t.Errorf("closed: a %v b %v c %v; want b and c closed, a stuck", isClosed(a.Done()), isClosed(b.Done()), isClosed(c.Done()))
		}
		msg := err.Error()
		if !errors.Is(err, ErrTeardownTimeout) || !errors.Is(err, ok2.closeErr) ||
			strings.Index(msg, ErrTeardownTimeout.Error()) > strings.Index(msg, "third failed") {
			t.Errorf("Shutdown = %q, want a's timeout then c's error, in session order", msg)
		}
		close(stuck.closeGate)
		m.Wait()
	})
}

// TestContract_C9_TimedOutCleanupStaysOwned: after the bound the caller
// returns, and Manager.Wait still waits for the teardown goroutine.
func TestContract_C9_TimedOutCleanupStaysOwned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.closeGate = make(chan struct{})
		m := managerWith(f)
		opts := testOpts
		opts.Bound = 5 * time.Second
		s := start(t, m, opts)
		if err := m.Kill(context.Background(), s.ID()); !errors.Is(err, ErrTeardownTimeout) {
			t.Fatalf("Kill = %v, want timeout", err)
		}
		waited := make(chan struct{})
		go func() { m.Wait(); close(waited) }()
		synctest.Wait()
		if isClosed(waited) {
			t.Fatal("Manager.Wait returned while a teardown goroutine still ran")
		}
		close(f.closeGate)
		<-waited
		if !isClosed(s.Done()) {
			t.Error("teardown did not complete")
		}
	})
}

// TestContract_C10_AdmissionClosesBeforeShutdown: Start after Shutdown
// began fails clearly and opens nothing.
func TestContract_C10_AdmissionClosesBeforeShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey[syscall.SIGHUP] = false
		opened := 0
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) {
			opened++
			if opened > 1 {
				return newFakePTY(), nil
			}
			return f, nil
		}}})
		start(t, m, testOpts)
		go func() { _ = m.Shutdown(context.Background()) }()
		synctest.Wait() // shutdown is waiting out the SIGHUP grace
		_, err := m.Start(t.Context(), "fake", providers.Spec{Name: "late"}, testOpts)
		if !errors.Is(err, ErrShuttingDown) || opened != 1 {
			t.Errorf("Start during shutdown = %v (opened %d), want ErrShuttingDown and nothing opened", err, opened)
		}
		m.Wait()
	})
}

// TestContract_C11_NoSnapshotWhileTeardownPending: the after-teardown hook
// runs only once the group is verified gone, the PTY closed and the pumps
// joined.
func TestContract_C11_NoSnapshotWhileTeardownPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey[syscall.SIGHUP] = false
		m := managerWith(f)
		var s *Session
		var problems []string
		opts := testOpts
		opts.AfterTeardown = func(_ context.Context, info Info, _ func(string)) (string, error) {
			if alive, _ := f.GroupAlive(); alive {
				problems = append(problems, "group alive")
			}
			if !f.isClosed() {
				problems = append(problems, "pty open")
			}
			if !isClosed(s.outputClosed) || !isClosed(s.tornDown) {
				problems = append(problems, "pumps not joined")
			}
			if !info.Killed {
				problems = append(problems, "not verified killed")
			}
			return "snap.tar.zst", nil
		}
		s = start(t, m, opts)
		if err := m.Close(context.Background(), s.ID()); err != nil {
			t.Fatal(err)
		}
		if len(problems) > 0 {
			t.Errorf("hook ran while teardown was pending: %v", problems)
		}
		if info := s.Info(); info.Saved != "snap.tar.zst" || info.Reason != ReasonClose {
			t.Errorf("info = %+v, want the hook's result kept and the close reason", info)
		}
		m.Wait()
	})
}

// TestContract_C12_KillMeansGone: a group whose background members outlive
// the leader counts as killed only once it is verified empty; kill-now
// skips the graces.
func TestContract_C12_KillMeansGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey = map[syscall.Signal]bool{syscall.SIGKILL: true}
		f.background = true
		m := managerWith(f)
		s := start(t, m, testOpts)
		f.exit(providers.ExitStatus{Code: 0}) // leader gone, group not
		synctest.Wait()
		t0 := time.Now()
		if err := m.Kill(context.Background(), s.ID()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d != 0 {
			t.Errorf("kill now took %v of graces", d)
		}
		if got := f.sentSignals(); !slices.Equal(got, []syscall.Signal{syscall.SIGKILL}) {
			t.Errorf("signals = %v, want SIGKILL only", got)
		}
		if !s.Info().Killed {
			t.Error("not marked killed")
		}
		m.Wait()
	})
}

// TestContract_C12_UnkillableIsNotKilled: a group that never empties is not
// reported killed, and the teardown says so.
func TestContract_C12_UnkillableIsNotKilled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey = map[syscall.Signal]bool{}
		m := managerWith(f)
		opts := testOpts
		opts.Bound = 8 * time.Second
		s := start(t, m, opts)
		err := m.Close(context.Background(), s.ID())
		if err == nil || s.Info().Killed {
			t.Errorf("Close = %v, killed %v; want an error and not killed", err, s.Info().Killed)
		}
		m.Wait()
		if !strings.Contains(fmt.Sprint(s.Info().Err), "still alive after SIGKILL") {
			t.Errorf("teardown error = %v, want it to say the group survived", s.Info().Err)
		}
	})
}
