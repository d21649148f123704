package ssh

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// outputSink collects a session's output and lets a test wait for a
// pattern.
type outputSink struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{}
}

func (o *outputSink) Output(text string) {
	o.mu.Lock()
	o.text.WriteString(text)
	o.mu.Unlock()
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

func (o *outputSink) waitMatch(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(20 * time.Second) // a stuck test, not a timing assertion
	for {
		o.mu.Lock()
		m := re.FindStringSubmatch(o.text.String())
		o.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-o.changed:
		case <-deadline:
			t.Fatalf("output never matched %v", re)
		}
	}
}

// TestContract_C15_StoppedServerTeardownIsBounded: the pane's sshd
// session process is stopped (SIGSTOP) and keepalives are off, so no
// request on the connection is ever answered. Closing the pane still
// ends within the graces plus a fixed bound: each signal stage gives up
// at its grace, and closing the connection frees the stuck requests.
func TestContract_C15_StoppedServerTeardownIsBounded(t *testing.T) {
	s := startServer(t)
	opts := s.options(t, "")
	opts["keepalive"] = "0s"
	m := session.NewManager(providers.Table{"ssh": New(nil)})
	sink := &outputSink{changed: make(chan struct{}, 1)}
	so := session.Options{StopGrace: 300 * time.Millisecond, KillGrace: 300 * time.Millisecond, Sinks: []session.Sink{sink}}
	sess, err := m.Start(t.Context(), "ssh", providers.Spec{
		Name:    "stopped",
		Command: []string{"sh", "-c", "echo pid=$$ sshd=$PPID.; exec sleep 1000"},
		Size:    providers.Size{Cols: 80, Rows: 24},
		Options: opts,
	}, so)
	if err != nil {
		t.Fatal(err)
	}
	ids := sink.waitMatch(t, regexp.MustCompile(`pid=(\d+) sshd=(\d+)\.`))
	pid, _ := strconv.Atoi(ids[1])
	sshd, _ := strconv.Atoi(ids[2])
	if err := syscall.Kill(sshd, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the pane's sshd %d: %v", sshd, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(sshd, syscall.SIGCONT) // it then sees the closed connection and hangs up
		_ = syscall.Kill(pid, syscall.SIGKILL)  // Best effort: the hang-up normally ended it.
		waitProcessGone(t, pid)
	})

	closed := make(chan error, 1)
	t0 := time.Now()
	go func() { closed <- m.Close(context.Background(), sess.ID()) }()
	// The graces, the fixed SIGKILL wait (5s) and the joins, with room for
	// a loaded machine 3x slower (the waits are timers; only the joins are
	// work); the old code never returned.
	const bound = 600*time.Millisecond + 5*time.Second + 10*time.Second
	select {
	case err = <-closed:
	case <-time.After(bound + 10*time.Second):
		t.Fatalf("Close did not return within %v: teardown is stuck at %q", bound+10*time.Second, sess.Info().Stage)
	}
	if d := time.Since(t0); d > bound {
		t.Errorf("Close took %v, want at most %v", d, bound)
	}
	if errors.Is(err, session.ErrTeardownTimeout) || err == nil {
		t.Errorf("Close = %v, want the teardown's own error (processes not verified gone)", err)
	}
	if info := sess.Info(); info.State != session.Closed || info.Killed {
		t.Errorf("info = %+v, want closed and not claimed killed", info)
	}
	waited := make(chan struct{})
	go func() { m.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("Manager.Wait did not return: a provider call stayed stuck after the connection was closed")
	}
}

// A signal request the stopped server never answers returns within
// requestTimeout, saying so; Close then ends the connection at once.
func TestSignalToStoppedServerIsBounded(t *testing.T) {
	s := startServer(t)
	opts := s.options(t, "")
	opts["keepalive"] = "0s"
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "echo pid=$$ sshd=$PPID.; exec sleep 1000"}, Options: opts})
	tm := watch(t, p)
	tm.waitFor(t, ".")
	ids := regexp.MustCompile(`pid=(\d+) sshd=(\d+)\.`).FindStringSubmatch(tm.output())
	if ids == nil {
		t.Fatalf("no pids in %q", tm.output())
	}
	pid, _ := strconv.Atoi(ids[1])
	sshd, _ := strconv.Atoi(ids[2])
	if err := syscall.Kill(sshd, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the pane's sshd %d: %v", sshd, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(sshd, syscall.SIGCONT)
		_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: the hang-up normally ended it.
		waitProcessGone(t, pid)
	})
	signalled := make(chan error, 1)
	go func() { signalled <- p.Signal(syscall.SIGHUP) }()
	select {
	case err := <-signalled:
		if !errors.Is(err, errNoAnswer) {
			t.Errorf("Signal = %v, want errNoAnswer", err)
		}
	case <-time.After(requestTimeout + 10*time.Second):
		t.Fatal("Signal to a stopped server did not return")
	}
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return with the server stopped")
	}
}
