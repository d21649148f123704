package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

var testOpts = Options{StopGrace: 2 * time.Second, KillGrace: 2 * time.Second, DrainGrace: time.Second, Bound: 30 * time.Second, Window: time.Millisecond}

// passWindow lets fake time pass one collector window, then waits until every
// goroutine in the bubble is blocked.
func passWindow() {
	time.Sleep(10 * time.Millisecond)
	synctest.Wait()
}

func start(t *testing.T, m *Manager, opts Options) *Session {
	t.Helper()
	s, err := m.Start(t.Context(), "fake", providers.Spec{Name: t.Name()}, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// shutdownAll settles every session so the bubble ends with no goroutine.
func shutdownAll(t *testing.T, m *Manager) {
	t.Helper()
	_ = m.Shutdown(context.Background())
	m.Wait()
}

// TestContract_O7_ExitWaitsForOutput: the process is reaped while the
// reader still holds the last byte of "é": the session stays running with
// no exit code; once the byte arrives and output closes, "é" is delivered
// and only then is the session exited.
func TestContract_O7_ExitWaitsForOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		sink := &textSink{}
		opts := testOpts
		opts.Sinks = []Sink{sink}
		s := start(t, m, opts)

		f.output <- []byte("x\xc3")
		f.exit(providers.ExitStatus{Code: 7})
		passWindow()
		if info := s.Info(); info.State != Running || info.ExitKnown {
			t.Fatalf("after reap with a byte in flight: %v, exit known %v; want running, no exit", info.State, info.ExitKnown)
		}
		if got := sink.String(); got != "x" {
			t.Fatalf("sink = %q, want %q (the lead byte of é is carried)", got, "x")
		}
		f.output <- []byte("\xa9")
		close(f.output)
		<-s.Exited()
		if got := sink.String(); got != "xé" {
			t.Errorf("sink = %q, want %q", got, "xé")
		}
		if info := s.Info(); info.State != Exited || !info.ExitKnown || info.Exit.Code != 7 {
			t.Errorf("info = %+v, want exited 7", info)
		}
		shutdownAll(t, m)
	})
}

// TestContract_O7_DrainGraceClosesOutput: a background child holding the
// PTY after the command was reaped gets DrainGrace, then the group is killed
// and the PTY closed so output can close and the session exit.
func TestContract_O7_DrainGraceClosesOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.background = true
		m := managerWith(f)
		s := start(t, m, testOpts)
		t0 := time.Now()
		f.exit(providers.ExitStatus{Code: 0})
		<-s.Exited()
		if waited := time.Since(t0); waited != testOpts.DrainGrace {
			t.Errorf("exited after %v, want the drain grace %v", waited, testOpts.DrainGrace)
		}
		if !f.isClosed() || !slices.Contains(f.sentSignals(), syscall.SIGKILL) {
			t.Errorf("drain grace passed but group not killed (%v) or PTY not closed (%v)", f.sentSignals(), f.isClosed())
		}
		shutdownAll(t, m)
	})
}

// TestContract_O8_ReaderBlocksWhenConsumerLags: with the sink stuck, the
// reader stops reading once the queue is full; nothing is dropped.
func TestContract_O8_ReaderBlocksWhenConsumerLags(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		sink := &textSink{gate: make(chan struct{})}
		opts := testOpts
		opts.QueueBytes = 4096
		opts.Sinks = []Sink{sink}
		start(t, m, opts)

		chunk := strings.Repeat("a", 1024)
		sent := 0
		for sent < 64 {
			select {
			case f.output <- []byte(chunk):
				sent++
				continue
			default:
			}
			synctest.Wait()
			select {
			case f.output <- []byte(chunk):
				sent++
				continue
			default:
			}
			break // the reader is blocked: the queue is full
		}
		if sent >= 64 {
			t.Fatalf("reader accepted all %d KiB with the consumer stuck: the queue is unbounded", sent)
		}
		close(sink.gate)
		go func() {
			for i := sent; i < 64; i++ {
				f.output <- []byte(chunk)
			}
			close(f.output)
			f.exit(providers.ExitStatus{})
		}()
		synctest.Wait()
		_ = m.Shutdown(context.Background())
		if got := len(sink.String()); got != 64*1024 {
			t.Errorf("delivered %d bytes, want %d: bytes were dropped", got, 64*1024)
		}
		m.Wait()
	})
}

// TestContract_S1_StartCancelledBeforeRegistration: the provider opened the
// PTY, the start is cancelled while waiting for registration: the Manager
// kills, reaps and closes it before Start returns, and registers nothing.
func TestContract_S1_StartCancelledBeforeRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		ctx, cancel := context.WithCancelCause(t.Context())
		cause := errors.New("pane closed while starting")
		testHookBeforeRegister = func() { cancel(cause) }
		defer func() { testHookBeforeRegister = nil }()
		_, err := m.Start(ctx, "fake", providers.Spec{Name: "s1"}, testOpts)
		if !errors.Is(err, cause) {
			t.Fatalf("Start = %v, want the cause", err)
		}
		if !f.isClosed() || !isClosed(f.exited) {
			t.Errorf("PTY not released: closed %v, reaped %v", f.isClosed(), isClosed(f.exited))
		}
		if n := len(m.List()); n != 0 {
			t.Errorf("%d sessions registered after a cancelled start", n)
		}
	})
}

// TestContract_S1_PanicBeforeRegistration: a panic between open and
// registration still releases the PTY.
func TestContract_S1_PanicBeforeRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		testHookBeforeRegister = func() { panic("boom") }
		defer func() { testHookBeforeRegister = nil }()
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Fatal("no panic")
				}
			}()
			_, _ = m.Start(t.Context(), "fake", providers.Spec{Name: "s1"}, testOpts)
		}()
		if !f.isClosed() || !isClosed(f.exited) {
			t.Errorf("PTY not released after panic: closed %v, reaped %v", f.isClosed(), isClosed(f.exited))
		}
	})
}

// TestContract_S1_CancelDuringOpen: the provider is still connecting when
// the start is cancelled; Start returns the cause and registers nothing.
func TestContract_S1_CancelDuringOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		entered := make(chan struct{})
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(ctx context.Context, _ providers.Spec) (providers.PTY, error) {
			close(entered)
			<-ctx.Done() // connecting until cancelled; created nothing yet
			return nil, context.Cause(ctx)
		}}})
		ctx, cancel := context.WithCancelCause(t.Context())
		cause := errors.New("gave up")
		go func() { <-entered; cancel(cause) }()
		if _, err := m.Start(ctx, "fake", providers.Spec{Name: "s1"}, testOpts); !errors.Is(err, cause) {
			t.Fatalf("Start = %v, want cause", err)
		}
		if n := len(m.List()); n != 0 {
			t.Errorf("%d sessions registered", n)
		}
	})
}

// TestContract_S2_RegistryNeverWaitsOnIO: while a teardown is stuck in the
// provider, the registry still starts, lists and looks up sessions.
func TestContract_S2_RegistryNeverWaitsOnIO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck, other := newFakePTY(), newFakePTY()
		stuck.closeGate = make(chan struct{})
		m := managerWith(stuck, other)
		s := start(t, m, testOpts)
		go func() { _ = m.Close(context.Background(), s.ID()) }()
		synctest.Wait() // teardown is now blocked inside the provider's Close
		s2 := start(t, m, testOpts)
		if _, ok := m.Get(s2.ID()); !ok || len(m.List()) != 2 {
			t.Errorf("registry did not answer while a teardown was stuck: %v", m.List())
		}
		close(stuck.closeGate)
		shutdownAll(t, m)
	})
}
