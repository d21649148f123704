package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"regexp"
	"syscall"
	"time"

	"github.com/moby/moby/client"
)

// release undoes what the starter created, newest first, on a context of
// its own: the caller's may be what ended the start.
func (s *starter) release() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	var errs []error
	if h := s.h; h != nil {
		_ = h.conn.Close() // Best effort: the exec is killed below regardless.
		h.cancel()
	}
	switch {
	case s.e == nil:
		return nil
	case s.created:
		// Removing the container kills everything the exec started.
		if err := removeContainer(ctx, s.e, s.cid, s.name); err != nil {
			errs = append(errs, err)
		}
	case s.execStarted:
		// An exec in a container sandmux does not own outlives its
		// connection: kill its session, found by its token.
		if err := killStarted(ctx, s.e, s.cid, s.opts.User, s.execID, s.token); err != nil {
			errs = append(errs, fmt.Errorf("kill the started exec in container %.12s: %w", s.cid, err))
		}
	}
	s.e.close()
	return errors.Join(errs...)
}

// killStarted kills the session of an exec whose start was sent, in a
// container sandmux did not create. The process may not run yet, or may
// still be the runtime's init, without the token in its environment: keep
// killing the session until the engine reports the exec ended, then sweep
// once more for members it left behind.
func killStarted(ctx context.Context, e *engine, cid, user, execID, token string) error {
	var sessions []string
	for delay := 5 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		in, err := e.ExecInspect(ctx, execID, client.ExecInspectOptions{})
		if err != nil {
			if gone(err) {
				return nil
			}
			return err
		}
		ranBefore := ended(in)
		found, err := e.findSessions(ctx, cid, user, token, sessions)
		if err == nil {
			found, _, err = e.signalSessions(ctx, cid, syscall.SIGKILL, token, found)
		}
		if err != nil {
			if gone(err) {
				return nil
			}
			return err
		}
		sessions = found
		if ranBefore {
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		}
	}
}

// removeContainer force-removes a container sandmux created, by id, or by
// name when the create request did not return (it ran to completion on the
// engine, so the name is enough). A container already gone is not an error.
func removeContainer(ctx context.Context, e *engine, id, name string) error {
	ref := id
	if ref == "" {
		ref = name
	}
	if _, err := e.ContainerRemove(ctx, ref, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !gone(err) {
		return fmt.Errorf("remove container %s: %w (remove it with: docker rm -f %s)", ref, err, ref)
	}
	return nil
}

// Close hangs up the exec's session when nobody else will end it (like a
// terminal closing), closes the connection, stops the watcher, removes a
// container sandmux created when configured to, and closes the client. It
// is idempotent and bounded; it does not wait for the command to exit.
func (h *handle) Close() error {
	h.closeOnce.Do(func() { h.closeErr = h.close() })
	return h.closeErr
}

func (h *handle) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	var errs []error
	select {
	case <-h.exited:
	default:
		if !h.remove {
			// Best effort: a session that ignores SIGHUP survives, as it
			// would a closed local terminal.
			_ = h.Signal(syscall.SIGHUP)
		}
	}
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	if err := h.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		errs = append(errs, fmt.Errorf("close docker exec connection: %w", err))
	}
	h.ops.Wait()
	<-h.watchDone
	if h.remove {
		if err := removeContainer(ctx, h.e, h.cid, ""); err != nil {
			errs = append(errs, err)
		}
	}
	h.e.close()
	return errors.Join(errs...)
}

// waitForPid waits until the engine reports the exec's pid, or that it
// ended without one (it failed to start). The engine answers the start
// request before it marks the exec running and long before the pid is
// known, and has no event for the pid: poll, with a backoff and a bound.
func waitForPid(ctx context.Context, e *engine, execID string) (client.ExecInspectResult, error) {
	bound := time.NewTimer(stepTimeout)
	defer bound.Stop()
	for delay := 2 * time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		in, err := e.ExecInspect(ctx, execID, client.ExecInspectOptions{})
		switch {
		case ctx.Err() != nil:
			return in, context.Cause(ctx)
		case err != nil:
			return in, fmt.Errorf("inspect the started exec: %w", err)
		case in.PID != 0 || ended(in):
			return in, nil
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-bound.C:
			t.Stop()
			return in, fmt.Errorf("the exec did not start within %v (check the engine: docker info)", stepTimeout)
		case <-ctx.Done():
			t.Stop()
			return in, context.Cause(ctx)
		}
	}
}

// ended reports whether an inspected exec has finished. Before it starts
// an exec is not running either; it then has neither a pid nor an exit
// code (the client reports a missing code as 0). One that failed to start
// has no pid but exit code 126 or 127.
func ended(in client.ExecInspectResult) bool {
	return !in.Running && (in.PID != 0 || in.ExitCode != 0)
}

// retry calls f until it succeeds, a few times with a short backoff.
func retry(ctx context.Context, f func() error) error {
	var err error
	for i, delay := 0, 5*time.Millisecond; i < 8; i, delay = i+1, 2*delay {
		if err = f(); err == nil {
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		}
	}
	return err
}

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return hex.EncodeToString(b)
}

var invalidNameChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// containerName is a unique name for a container created for the sandbox
// called name. The name is chosen before the create request, so that a
// container whose creation was interrupted can still be found.
func containerName(name string) string {
	n := invalidNameChars.ReplaceAllString(name, "-")
	if len(n) > 40 {
		n = n[:40]
	}
	return "sandmux-" + n + "-" + newToken()[:8]
}
