package ssh

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// fdList names the open descriptors, for a failure message.
func fdList() string {
	ents, _ := os.ReadDir("/proc/self/fd")
	var b strings.Builder
	for _, e := range ents {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		b.WriteString(e.Name() + "->" + target + " ")
	}
	return b.String()
}

// checkNothingLeft fails if descriptors or goroutines outlive Open. The
// goroutines go first: goleak waits for those still ending, and one of
// them may be closing a connection, whose descriptor counted as left
// when a loaded machine had not run it yet. A descriptor still open
// once they are gone is given a bounded while more, polled: its close
// has no event to wait on.
func checkNothingLeft(t *testing.T, fds int, goroutines goleak.Option) {
	t.Helper()
	if err := goleak.Find(goroutines); err != nil {
		t.Errorf("goroutines left behind: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for openFDs(t) != fds && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // a poll interval
	}
	if now := openFDs(t); now != fds {
		t.Errorf("open descriptors: %d before, %d after: %s", fds, now, fdList())
	}
}

// TestContract_S1_CancelAtEachStep cancels Open in the middle of the
// handshake, after the session channel opened, and after the remote command
// started: Open returns the cause, and nothing it created is left, the
// remote process included.
func TestContract_S1_CancelAtEachStep(t *testing.T) {
	s := startServer(t)
	for _, step := range []string{"handshake", "session", "started"} {
		t.Run(step, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			spec := providers.Spec{
				Command: []string{"sh", "-c", "echo $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "; exec sleep 1000"},
				Size:    providers.Size{Cols: 80, Rows: 24},
				Options: s.options(t, ""),
			}
			fds, goroutines := openFDs(t), goleak.IgnoreCurrent()
			ctx, cancel := context.WithCancelCause(t.Context())
			cause := errors.New("user closed the pane")
			reached := false
			setHook(t, func(at string) {
				if at != step {
					return
				}
				reached = true
				if step == "started" {
					// Cancel only once the remote command surely runs.
					waitForFile(t, pidFile)
				}
				cancel(cause)
			})
			p, err := New(nil).Open(ctx, spec)
			if !errors.Is(err, cause) {
				if p != nil {
					_ = p.Close()
				}
				t.Fatalf("Open = %v, want the cancellation cause", err)
			}
			if !reached {
				t.Fatalf("the gate at %q never ran", step)
			}
			checkNothingLeft(t, fds, goroutines)
			if step == "started" {
				pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
				waitProcessGone(t, pid)
			}
		})
	}
}

// A server that accepts and then says nothing holds Open in the handshake;
// cancelling returns at once with the cause, leaving nothing.
func TestContract_S1_CancelWhileServerSilent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	key := filepath.Join(t.TempDir(), "key")
	keygen(t, key)
	t.Setenv("SSH_AUTH_SOCK", "")
	fds, goroutines := openFDs(t), goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("quit")
	done := make(chan error, 1)
	go func() {
		_, err := New(nil).Open(ctx, providers.Spec{Options: map[string]any{
			"host": l.Addr().String(), "identity_files": []any{key}, "connect_timeout": "10m",
		}})
		done <- err
	}()
	c := <-accepted
	defer c.Close()
	cancel(cause)
	select {
	case err := <-done:
		if !errors.Is(err, cause) {
			t.Fatalf("Open = %v, want the cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open still blocked 10s after the cancel")
	}
	_ = c.Close()
	<-accepted // the accept goroutine has ended
	checkNothingLeft(t, fds, goroutines)
}

// A done context creates nothing; failed opens leave nothing.
func TestContract_S1_FailuresLeaveNothing(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("gone")
	cancel(cause)
	if _, err := New(nil).Open(ctx, providers.Spec{Options: s.options(t, "")}); !errors.Is(err, cause) {
		t.Errorf("Open with a done context = %v, want the cause", err)
	}
	unknown := s.options(t, "")
	unknown["known_hosts"] = []any{filepath.Join(t.TempDir(), "empty")}
	refused := map[string]any{"host": "127.0.0.1:" + strconv.Itoa(freePort(t)), "identity_files": []any{s.userKey}}
	fds, goroutines := openFDs(t), goleak.IgnoreCurrent()
	for range 5 {
		for _, opts := range []map[string]any{unknown, refused} {
			if _, err := New(nil).Open(t.Context(), providers.Spec{Options: opts}); err == nil {
				t.Fatal("Open succeeded")
			}
		}
	}
	checkNothingLeft(t, fds, goroutines)
}

// waitForFile polls: the remote shell writes it with no event to wait on.
func waitForFile(t *testing.T, f string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(f); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", f)
		}
		time.Sleep(5 * time.Millisecond) // a poll interval: no event to wait on
	}
}
