package docker

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// TestContract_S4_QuitDuringStart: sandmux quits (Manager.Shutdown, then
// Wait, as the TUI does on exit) while an exec in a container created from
// an image is starting. Shutdown cancels the start and returns only once it
// returned, so no sandmux container is left running.
func TestContract_S4_QuitDuringStart(t *testing.T) {
	needDocker(t)
	spec := imageSpec(t, "sleep", "1006")
	reached := make(chan struct{})
	testHookStep = func(ctx context.Context, step string) {
		if step == stepStarted {
			close(reached)
			<-ctx.Done() // the exec runs; the start is still settling it
		}
	}
	defer func() { testHookStep = nil }()
	m := session.NewManager(providers.Table{"docker": New()})
	startCtx, stopStart := context.WithCancel(t.Context())
	defer stopStart()
	started := make(chan error, 1)
	go func() {
		_, err := m.Start(startCtx, "docker", spec, session.Options{})
		started <- err
	}()
	<-reached
	if err := m.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	m.Wait()
	for _, c := range containersOf(t, spec.Name) {
		t.Errorf("container %v (%s) left after quitting during its start", c.Names, c.State)
	}
	stopStart() // frees the gate, should Shutdown not have cancelled it
	if err := <-started; !errors.Is(err, session.ErrShuttingDown) {
		t.Errorf("Start = %v, want ErrShuttingDown", err)
	}
}

// silentEngine listens on 127.0.0.1, accepts every connection and never
// answers: an address that is not an engine, or an engine that hangs. It
// returns the tcp:// address; connections are closed when the test ends.
func silentEngine(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "tcp://" + ln.Addr().String()
}

// An engine address that accepts and never answers fails the start within
// connect_timeout, with an error that names the timeout and what to check,
// and leaves no connection or goroutine behind.
func TestConnectTimeoutSilentEngine(t *testing.T) {
	t.Setenv(client.EnvOverrideHost, silentEngine(t))
	ignore := goleak.IgnoreCurrent() // the listener's own accept loop
	spec := providers.Spec{Name: "silent", Options: map[string]any{"image": "busybox", "connect_timeout": "300ms"}}
	t0 := time.Now()
	_, err := New().Open(t.Context(), spec)
	d := time.Since(t0)
	if err == nil || !errors.Is(err, errNoAnswer) || !strings.Contains(err.Error(), "connect_timeout = 300ms") {
		t.Fatalf("Open = %v, want an error naming connect_timeout", err)
	}
	// Generous: a loaded machine; the point is seconds, not minutes.
	if d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("Open took %v with connect_timeout = 300ms", d)
	}
	goleak.VerifyNone(t, ignore)
}
