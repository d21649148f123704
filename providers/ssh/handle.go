package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/sandmux/sandmux/providers"
)

// handle is one remote command on a PTY, and the connection it owns.
type handle struct {
	client *ssh.Client
	sess   *ssh.Session
	stdin  io.WriteCloser
	stdout io.Reader
	target string
	marker string // the value of markerVar in the pane's processes
	shell  *sweepShell

	wg       sync.WaitGroup // the reaper, the keepalive loop and the sweep shell
	closing  chan struct{}  // closed by Close
	waitDone chan struct{}  // closed once the session ended and status is set
	status   providers.ExitStatus
	waitErr  error

	mu           sync.Mutex
	disconnected error // wraps ErrDisconnected once the connection dropped
	hungUp       bool  // we closed the channel or the connection on purpose
	gone         bool  // a sweep found none of the pane's processes left
	closed       bool  // Close began: no more goroutines join wg

	closeOnce sync.Once

	// sweptNone, set by tests only, runs each time a sweep found none of
	// the pane's processes and another is to follow (sweepAgain).
	sweptNone func()
}

func newHandle(client *ssh.Client, sess *ssh.Session, stdin io.WriteCloser, stdout io.Reader, o Options, marker string) *handle {
	h := &handle{
		client: client, sess: sess, stdin: stdin, stdout: stdout, target: o.Target(), marker: marker,
		closing: make(chan struct{}), waitDone: make(chan struct{}),
	}
	// All end once the connection is closed, which Close always does.
	h.wg.Go(h.reap)
	h.shell = startSweepShell(client, h.wg.Go)
	if o.Keepalive > 0 {
		h.wg.Go(func() { h.keepalive(o.Keepalive) })
	}
	return h
}

// reap waits for the session to end and records how.
func (h *handle) reap() {
	defer close(h.waitDone)
	err := h.sess.Wait()
	var exit *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		h.status = providers.ExitStatus{Code: 0}
		return
	case errors.As(err, &exit):
		h.status = exitStatus(exit)
		return
	case !errors.As(err, &missing):
		h.status = providers.ExitStatus{Code: -1, Unknown: true}
		h.waitErr = fmt.Errorf("wait for the command on %s: %w", h.target, err)
		return
	}
	h.status = providers.ExitStatus{Code: -1, Unknown: true}
	// No status came: sshd closed the channel without one, we hung up, or
	// the connection dropped, which closes every channel. Only the last is
	// an error; a round trip to the server tells it apart from the first.
	h.mu.Lock()
	hungUp := h.hungUp
	h.mu.Unlock()
	if !hungUp {
		if _, _, err := h.client.SendRequest("keepalive@openssh.com", true, nil); err != nil {
			h.disconnect(err)
		}
	}
	h.waitErr = h.disconnectedErr()
}

func exitStatus(e *ssh.ExitError) providers.ExitStatus {
	if e.Signal() == "" {
		return providers.ExitStatus{Code: e.ExitStatus()}
	}
	if sig, ok := signalNumbers[ssh.Signal(e.Signal())]; ok {
		return providers.ExitStatus{Code: -1, Signal: sig}
	}
	return providers.ExitStatus{Code: -1, Unknown: true}
}

// keepalive checks the connection every interval. A request that fails,
// or stays unanswered for three intervals, marks the connection dropped. A
// silently dead peer never answers and SendRequest has no deadline, so the
// request runs on its own goroutine (one at a time) while this loop keeps
// time; closing the connection ends it.
func (h *handle) keepalive(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	answers := make(chan error, 1)
	var sent time.Time // zero while no request is outstanding
	for {
		select {
		case <-h.closing:
			return
		case <-h.waitDone:
			return // The command ended; Close ends the connection.
		case err := <-answers:
			sent = time.Time{}
			if err != nil {
				h.disconnect(err)
				return
			}
			hook("keepalive")
		case now := <-t.C:
			if sent.IsZero() {
				sent = now
				h.wg.Go(func() {
					// OpenSSH answers this unknown request with a failure:
					// any answer means the connection is alive.
					_, _, err := h.client.SendRequest("keepalive@openssh.com", true, nil)
					answers <- err
				})
			} else if now.Sub(sent) >= 3*interval {
				h.disconnect(fmt.Errorf("no answer to keepalives for %v", now.Sub(sent).Round(time.Millisecond)))
				return
			}
		}
	}
}

// disconnect marks the connection dropped, unless we closed it, and closes
// it so that every blocked call returns.
func (h *handle) disconnect(cause error) {
	h.mu.Lock()
	if h.disconnected == nil && !h.hungUp {
		h.disconnected = fmt.Errorf("%w from %s: %v (the remote command may still be running; restart the pane to reconnect)", ErrDisconnected, h.target, cause)
	}
	h.mu.Unlock()
	_ = h.client.Close() // Best effort: already closed is fine.
}

func (h *handle) disconnectedErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.disconnected
}

// Read reads the PTY's output. The channel ends the same way whether the
// command exited or the connection dropped; the reaper tells them apart, so
// at the end Read waits for it and returns an error wrapping
// ErrDisconnected instead of io.EOF when the connection dropped.
func (h *handle) Read(p []byte) (int, error) {
	n, err := h.stdout.Read(p)
	if errors.Is(err, io.EOF) {
		select {
		case <-h.waitDone:
			if d := h.disconnectedErr(); d != nil {
				return n, d
			}
		case <-h.closing:
		}
	}
	return n, err
}

func (h *handle) Write(p []byte) (int, error) {
	n, err := h.stdin.Write(p)
	if err != nil {
		if d := h.disconnectedErr(); d != nil {
			return n, d
		}
		return n, fmt.Errorf("write to %s: %w", h.target, err)
	}
	return n, nil
}

// Resize sends window-change; sshd sets the PTY's size and the kernel sends
// SIGWINCH.
func (h *handle) Resize(sz providers.Size) error {
	if err := h.sess.WindowChange(int(sz.Rows), int(sz.Cols)); err != nil {
		return fmt.Errorf("resize the pty on %s to %v: %w", h.target, sz, err)
	}
	return nil
}

// Wait returns how the command ended. When the connection dropped first,
// the status is unknown and the error wraps ErrDisconnected.
func (h *handle) Wait(ctx context.Context) (providers.ExitStatus, error) {
	select {
	case <-h.waitDone:
		return h.status, h.waitErr
	case <-ctx.Done():
		return providers.ExitStatus{}, context.Cause(ctx)
	}
}

// Close closes the session and the connection, which ends a Read in
// progress and every request still waiting for an answer (a Signal the
// caller gave up on), and waits for the handle's goroutines. It does not
// wait for the remote command; sshd hangs it up.
func (h *handle) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.hungUp, h.closed = true, true
		h.mu.Unlock()
		close(h.closing)
		_ = h.sess.Close() // Best effort: closing the connection closes it too.
		closeClient(h.client)
		h.wg.Wait()
	})
	return nil
}
