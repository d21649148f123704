package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// gatedOpen is a provider whose Open is connecting until its context ends,
// then holds what it created until the test lets it release.
type gatedOpen struct {
	entered  chan context.Context // receives Open's context once it runs
	release  chan struct{}        // closed by the test: Open releases and returns
	released chan struct{}        // closed once Open released everything
}

func newGatedOpen() *gatedOpen {
	return &gatedOpen{entered: make(chan context.Context, 1), release: make(chan struct{}), released: make(chan struct{})}
}

func (g *gatedOpen) Open(ctx context.Context, _ providers.Spec) (providers.PTY, error) {
	g.entered <- ctx
	<-ctx.Done()
	<-g.release // still tearing down what the start created
	close(g.released)
	return nil, context.Cause(ctx)
}

// TestContract_S4_ShutdownOwnsStartsInFlight: a start blocked inside
// Open is owned by the Manager. Shutdown cancels it with ErrShuttingDown
// and returns only once Open returned and released what it created; Wait
// counts it too.
func TestContract_S4_ShutdownOwnsStartsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedOpen()
		m := NewManager(providers.Table{"fake": g})
		startCtx, stopStart := context.WithCancel(t.Context())
		defer stopStart() // frees the gate should Shutdown not cancel it
		free := sync.OnceFunc(func() { close(g.release) })
		defer free()
		started := make(chan error, 1)
		go func() {
			_, err := m.Start(startCtx, "fake", providers.Spec{Name: "starting"}, testOpts)
			started <- err
		}()
		openCtx := <-g.entered

		shut := make(chan error, 1)
		go func() { shut <- m.Shutdown(context.Background()) }()
		waited := make(chan struct{})
		go func() { m.Wait(); close(waited) }()
		synctest.Wait()
		if isClosed(waited) {
			t.Error("Manager.Wait returned while a start was still inside Open")
		}
		select {
		case err := <-shut:
			t.Fatalf("Shutdown returned (%v) while a start was still inside Open", err)
		default:
		}
		if !errors.Is(context.Cause(openCtx), ErrShuttingDown) {
			t.Fatalf("Open's context: cause %v, want ErrShuttingDown (Shutdown cancels starts in flight)", context.Cause(openCtx))
		}
		free()
		if err := <-shut; err != nil {
			t.Errorf("Shutdown = %v, want nil: the start was cancelled and cleaned up", err)
		}
		if !isClosed(g.released) {
			t.Error("Shutdown returned before Open released what it created")
		}
		if err := <-started; !errors.Is(err, ErrShuttingDown) {
			t.Errorf("Start = %v, want ErrShuttingDown", err)
		}
		<-waited
		if n := len(m.List()); n != 0 {
			t.Errorf("%d sessions registered by a start cancelled at quit", n)
		}
	})
}

// TestContract_S4_StartOpenedDuringShutdownIsReleased: Open succeeds
// after Shutdown began (it ignored the cancellation): the PTY is killed,
// reaped and closed before Shutdown returns, and nothing is registered.
func TestContract_S4_StartOpenedDuringShutdownIsReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		entered, proceed := make(chan struct{}), make(chan struct{})
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) {
			close(entered)
			<-proceed
			return f, nil
		}}})
		go func() { _, _ = m.Start(t.Context(), "fake", providers.Spec{Name: "late"}, testOpts) }()
		<-entered
		shut := make(chan error, 1)
		go func() { shut <- m.Shutdown(context.Background()) }()
		synctest.Wait()
		close(proceed)
		<-shut
		if !f.isClosed() || !isClosed(f.exited) {
			t.Errorf("Shutdown returned with the late PTY not released: closed %v, reaped %v", f.isClosed(), isClosed(f.exited))
		}
		if n := len(m.List()); n != 0 {
			t.Errorf("%d sessions registered after Shutdown", n)
		}
		m.Wait()
	})
}

// TestContract_S4_ShutdownBoundsStartInFlight: a start that ignores its
// cancellation does not hold Shutdown past the start's bound; it stays
// owned, and Wait waits for it.
func TestContract_S4_ShutdownBoundsStartInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		entered, proceed := make(chan struct{}), make(chan struct{})
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(ctx context.Context, _ providers.Spec) (providers.PTY, error) {
			close(entered)
			<-proceed
			return nil, errors.New("gave up at last")
		}}})
		opts := testOpts
		opts.Bound = 5 * time.Second
		go func() { _, _ = m.Start(t.Context(), "fake", providers.Spec{Name: "stuck"}, opts) }()
		<-entered
		t0 := time.Now()
		err := m.Shutdown(context.Background())
		if d := time.Since(t0); d != opts.Bound+reportMargin {
			t.Errorf("Shutdown took %v, want the start's bound %v", d, opts.Bound+reportMargin)
		}
		if !errors.Is(err, ErrStartTimeout) || !strings.Contains(err.Error(), "stuck") {
			t.Errorf("Shutdown = %v, want ErrStartTimeout naming the start", err)
		}
		waited := make(chan struct{})
		go func() { m.Wait(); close(waited) }()
		synctest.Wait()
		if isClosed(waited) {
			t.Error("Wait returned while a start was still inside Open")
		}
		close(proceed)
		<-waited
	})
}

// stuckPTY models a remote PTY whose transport stopped answering: Signal
// and GroupAlive block until Close tears the transport down, which also
// ends the command's channel (Wait returns, status unknown).
type stuckPTY struct {
	*fakePTY
	neverFree bool          // Signal stays stuck even after Close
	free      chan struct{} // closed by the test at the end
	calls     chan syscall.Signal
}

func newStuckPTY() *stuckPTY {
	f := newFakePTY()
	f.obey = map[syscall.Signal]bool{}
	return &stuckPTY{fakePTY: f, free: make(chan struct{}), calls: make(chan syscall.Signal, 8)}
}

func (p *stuckPTY) Signal(sig syscall.Signal) error {
	p.calls <- sig
	closed := p.closed
	if p.neverFree {
		closed = nil
	}
	select {
	case <-closed:
		return errors.New("connection closed")
	case <-p.free:
		return errors.New("freed by the test")
	}
}

func (p *stuckPTY) Close() error {
	err := p.fakePTY.Close()
	p.exit(providers.ExitStatus{Code: -1, Unknown: true})
	return err
}

func stuckManager(p *stuckPTY) *Manager {
	return NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) {
		return p, nil
	}}})
}

func sentTo(p *stuckPTY) []syscall.Signal {
	var got []syscall.Signal
	for {
		select {
		case sig := <-p.calls:
			got = append(got, sig)
		default:
			return got
		}
	}
}

// TestContract_C15_StuckSignalMovesOn: a Signal that never returns (the
// transport went silent) does not hold the teardown: each stage gives up
// at its grace and moves on (SIGTERM, SIGKILL, then closing the transport,
// which frees the stuck calls, joined before the teardown settles). Close
// returns within the graces plus the fixed kill wait, saying that the
// processes were not verified gone.
func TestContract_C15_StuckSignalMovesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newStuckPTY()
		defer close(p.free)
		m := stuckManager(p)
		s := start(t, m, testOpts)
		t0 := time.Now()
		err := m.Close(context.Background(), s.ID())
		d := time.Since(t0)
		if want := testOpts.StopGrace + testOpts.KillGrace + killWait; d > want {
			t.Errorf("Close took %v, want at most the graces plus the kill wait, %v", d, want)
		}
		if got := sentTo(p); !slices.Equal(got, []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL}) {
			t.Errorf("signals tried = %v, want SIGHUP, SIGTERM, SIGKILL", got)
		}
		if errors.Is(err, ErrTeardownTimeout) || err == nil || !strings.Contains(err.Error(), "SIGHUP: no answer") {
			t.Errorf("Close = %v, want the teardown's own error naming the unanswered signals", err)
		}
		if info := s.Info(); info.Killed || info.State != Closed || !p.isClosed() {
			t.Errorf("info %+v, pty closed %v: want closed, not claimed killed", info, p.isClosed())
		}
		m.Wait()
	})
}

// TestContract_C9_StuckProviderCallStaysOwned: a Signal that not even
// closing the transport frees leaves the teardown free to finish, but its
// goroutine stays owned: Manager.Wait waits for it.
func TestContract_C9_StuckProviderCallStaysOwned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newStuckPTY()
		p.neverFree = true
		m := stuckManager(p)
		opts := testOpts
		s := start(t, m, opts)
		_ = m.Close(context.Background(), s.ID())
		if !isClosed(s.Done()) {
			t.Fatal("Close returned before the teardown settled")
		}
		waited := make(chan struct{})
		go func() { m.Wait(); close(waited) }()
		synctest.Wait()
		if isClosed(waited) {
			t.Fatal("Manager.Wait returned while a provider call was still running")
		}
		close(p.free)
		<-waited
	})
}

// aliveStuckPTY's command was reaped, but GroupAlive never answers until
// Close: the sandbox's process list cannot be read.
type aliveStuckPTY struct{ *fakePTY }

func (p aliveStuckPTY) GroupAlive() (bool, error) {
	<-p.closed
	return false, errors.New("connection closed")
}

// TestContract_C15_StuckGroupAliveMovesOn: a GroupAlive that never
// answers does not hold any stage past its grace: the teardown ends within
// the graces, the kill wait and the last look, not at its bound.
func TestContract_C15_StuckGroupAliveMovesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey = map[syscall.Signal]bool{}
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) {
			return aliveStuckPTY{f}, nil
		}}})
		s := start(t, m, testOpts)
		close(f.output)
		f.exit(providers.ExitStatus{Code: 0}) // reaped, output closed; the rest of the group unknown
		<-s.Exited()
		t0 := time.Now()
		err := m.Close(context.Background(), s.ID())
		if want := testOpts.StopGrace + testOpts.KillGrace + killWait + lastLook; time.Since(t0) > want {
			t.Errorf("Close took %v, want at most %v", time.Since(t0), want)
		}
		if err == nil || errors.Is(err, ErrTeardownTimeout) || s.Info().Killed {
			t.Errorf("Close = %v, killed %v; want the teardown's own error, not killed", err, s.Info().Killed)
		}
		if got := f.sentSignals(); !slices.Equal(got, []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL}) {
			t.Errorf("signals = %v, want the whole ladder", got)
		}
		m.Wait()
	})
}
