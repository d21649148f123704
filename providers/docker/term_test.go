package docker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// term reads a PTY on a goroutine it owns, so that a test can wait for
// output by event instead of sleeping.
type term struct {
	t   *testing.T
	pty providers.PTY

	mu      sync.Mutex
	buf     bytes.Buffer
	readErr error
	ended   bool
	changed chan struct{} // one slot: something was read, or reading ended
	done    chan struct{} // closed when the reader returns
	from    int           // expect searches from here
}

// open opens spec and registers a cleanup that kills, waits for, closes
// and joins everything.
func open(t *testing.T, spec providers.Spec) *term {
	t.Helper()
	p, err := New().Open(t.Context(), spec)
	if err != nil {
		t.Fatalf("Open(%v): %v", spec.Command, err)
	}
	tm := &term{t: t, pty: p, changed: make(chan struct{}, 1), done: make(chan struct{})}
	go tm.read()
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL) // Best effort: the test may have ended it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = p.Wait(ctx)
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		<-tm.done
	})
	return tm
}

func (tm *term) read() {
	defer close(tm.done)
	b := make([]byte, 4096)
	for {
		n, err := tm.pty.Read(b)
		tm.mu.Lock()
		tm.buf.Write(b[:n])
		if err != nil {
			tm.ended, tm.readErr = true, err
		}
		tm.mu.Unlock()
		select {
		case tm.changed <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// expect waits until s appears in the output after the last match.
func (tm *term) expect(s string) {
	tm.t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		out, ended := tm.buf.String(), tm.ended
		tm.mu.Unlock()
		if i := strings.Index(out[tm.from:], s); i >= 0 {
			tm.from += i + len(s)
			return
		}
		if ended {
			tm.t.Fatalf("output ended without %q; output: %q", s, out)
		}
		select {
		case <-tm.changed:
		case <-deadline.C:
			tm.t.Fatalf("no %q after 30s; output: %q", s, out)
		}
	}
}

// all waits for the end of output and returns all of it.
func (tm *term) all() string {
	tm.t.Helper()
	select {
	case <-tm.done:
	case <-time.After(30 * time.Second):
		tm.t.Fatal("output did not end within 30s")
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if !errors.Is(tm.readErr, io.EOF) {
		tm.t.Errorf("read ended with %v, want io.EOF", tm.readErr)
	}
	return tm.buf.String()
}

func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(s)); err != nil {
		tm.t.Fatalf("write %q: %v", s, err)
	}
}

func (tm *term) wait() providers.ExitStatus {
	tm.t.Helper()
	ctx, cancel := context.WithTimeout(tm.t.Context(), 30*time.Second)
	defer cancel()
	st, err := tm.pty.Wait(ctx)
	if err != nil {
		tm.t.Fatalf("Wait: %v", err)
	}
	return st
}

// waitGroupGone polls GroupAlive, which has no event to wait on.
func (tm *term) waitGroupGone() {
	tm.t.Helper()
	eventually(tm.t, "the exec's session is still alive", func() bool {
		alive, err := tm.pty.GroupAlive()
		if err != nil {
			tm.t.Fatalf("GroupAlive: %v", err)
		}
		return !alive
	})
}

func (tm *term) handle() *handle { return tm.pty.(*handle) }
