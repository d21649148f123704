package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/sandmux/sandmux/providers"
)

// killSettle is how long Signal(SIGKILL) waits, after sshd accepted it, for
// the session to end before it hangs up: a process outside the killed group
// may still hold the PTY open.
const killSettle = 2 * time.Second

// handle is one remote command on a PTY, and the connection it owns.
type handle struct {
	client *ssh.Client
	sess   *ssh.Session
	stdin  io.WriteCloser
	stdout io.Reader
	target string

	wg       sync.WaitGroup // the reaper and the keepalive loop
	closing  chan struct{}  // closed by Close
	waitDone chan struct{}  // closed once the session ended and status is set
	status   providers.ExitStatus
	waitErr  error

	mu           sync.Mutex
	disconnected error // wraps ErrDisconnected once the connection dropped
	hungUp       bool  // we closed the channel or the connection on purpose

	closeOnce sync.Once
}

func newHandle(client *ssh.Client, sess *ssh.Session, stdin io.WriteCloser, stdout io.Reader, o Options) *handle {
	h := &handle{
		client: client, sess: sess, stdin: stdin, stdout: stdout, target: o.Target(),
		closing: make(chan struct{}), waitDone: make(chan struct{}),
	}
	// Both end once the connection is closed, which Close always does.
	h.wg.Go(h.reap)
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

// Signal asks sshd to send sig to the command's process group (OpenSSH
// 7.9+ does, with killpg on the session's leader, except for root logins,
// which run without privilege separation and are refused). When the server
// refuses:
//   - SIGHUP, SIGTERM and SIGKILL hang up: closing the channel makes sshd
//     close the PTY, and the kernel sends SIGHUP to the remote session;
//   - SIGINT and SIGQUIT are typed as the terminal's ^C and ^\, which reach
//     the foreground group while the remote terminal has ISIG on (the
//     default; a program in raw mode reads them as input instead);
//   - the others are reported as refused.
//
// An accepted SIGKILL that does not end the session within killSettle also
// hangs up. A remote process that ignores SIGHUP survives a hang-up; the
// provider cannot see it once the channel is closed.
func (h *handle) Signal(sig syscall.Signal) error {
	select {
	case <-h.waitDone:
		return nil // Already ended: the goal of every signal we send.
	default:
	}
	name, known := signalNames[sig]
	var ok bool
	var err error
	if known {
		ok, err = h.sess.SendRequest("signal", true, ssh.Marshal(struct{ Signal string }{string(name)}))
	}
	accepted := known && ok && err == nil
	switch {
	case accepted && sig == syscall.SIGKILL:
		t := time.NewTimer(killSettle)
		defer t.Stop()
		select {
		case <-h.waitDone:
		case <-h.closing:
		case <-t.C:
			h.hangUp()
		}
	case accepted:
	case sig == syscall.SIGHUP || sig == syscall.SIGTERM || sig == syscall.SIGKILL:
		h.hangUp()
	case sig == syscall.SIGINT || sig == syscall.SIGQUIT:
		key := map[syscall.Signal]string{syscall.SIGINT: "\x03", syscall.SIGQUIT: "\x1c"}[sig]
		if _, err := h.Write([]byte(key)); err != nil {
			return fmt.Errorf("send %v to %s through the terminal: %w", sig, h.target, err)
		}
	case !known:
		return fmt.Errorf("send %v to %s: SSH can carry only the signals RFC 4254 names", sig, h.target)
	default:
		return fmt.Errorf("send %v to %s: the server refused it (OpenSSH forwards signals from 7.9 on, and not to root logins): %w", sig, h.target, errors.Join(err, errRefused))
	}
	return nil
}

var errRefused = errors.New("request refused")

// hangUp closes the session's channel on purpose.
func (h *handle) hangUp() {
	h.mu.Lock()
	h.hungUp = true
	h.mu.Unlock()
	_ = h.sess.Close() // Best effort: a closed channel is the goal.
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

// GroupAlive reports true until the session's channel has closed and its
// end was recorded. The remote group itself is out of sight: sshd reaches it
// (killpg for signals, SIGHUP through the PTY on hang-up), and a remote
// process that survives both is not seen here.
func (h *handle) GroupAlive() (bool, error) {
	select {
	case <-h.waitDone:
		return false, nil
	default:
		return true, nil
	}
}

// Close closes the session and the connection, which ends a Read in
// progress, and waits for the handle's goroutines. It does not wait for the
// remote command; sshd hangs it up.
func (h *handle) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.hungUp = true
		h.mu.Unlock()
		close(h.closing)
		_ = h.sess.Close() // Best effort: closing the connection closes it too.
		closeClient(h.client)
		h.wg.Wait()
	})
	return nil
}

// signalNames are the signals RFC 4254 lets a client send.
var signalNames = map[syscall.Signal]ssh.Signal{
	syscall.SIGABRT: ssh.SIGABRT, syscall.SIGALRM: ssh.SIGALRM, syscall.SIGFPE: ssh.SIGFPE,
	syscall.SIGHUP: ssh.SIGHUP, syscall.SIGILL: ssh.SIGILL, syscall.SIGINT: ssh.SIGINT,
	syscall.SIGKILL: ssh.SIGKILL, syscall.SIGPIPE: ssh.SIGPIPE, syscall.SIGQUIT: ssh.SIGQUIT,
	syscall.SIGSEGV: ssh.SIGSEGV, syscall.SIGTERM: ssh.SIGTERM, syscall.SIGUSR1: ssh.SIGUSR1,
	syscall.SIGUSR2: ssh.SIGUSR2,
}

var signalNumbers = func() map[ssh.Signal]syscall.Signal {
	m := make(map[ssh.Signal]syscall.Signal, len(signalNames))
	for n, s := range signalNames {
		m[s] = n
	}
	return m
}()
