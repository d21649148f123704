package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// Every process a pane starts on the host inherits markerVar=<random id>.
// That is how the provider finds the pane's processes from a second session
// on the same connection (sweep): sshd does not tell a client the remote
// process group, refuses signal requests for root logins, and reports the
// session ended when its leader exits, while other members may still run.
// On hosts without /proc (not Linux) the sweep reports errNoProc and the
// provider falls back to what the channel tells it. A process that clears
// its environment (env -i) escapes the sweep.
const markerVar = "SANDMUX_PANE_ID"

// sweepTimeout bounds one sweep; a connection that cannot run a short
// command in that time is treated as dropped.
const sweepTimeout = 10 * time.Second

var errNoProc = errors.New("the host has no /proc to find the pane's processes in (not Linux?)")

func newMarker() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // Never fails on Linux (Go's crypto/rand panics rather than return short).
	return hex.EncodeToString(b)
}

// sweepScript lists the pids of live processes whose environment holds
// the marker (a zombie's environment reads empty), signalling their process
// groups and then them when sig is set. GNU grep -z finds them in one pass;
// busybox and others get a loop over /proc.
func sweepScript(marker string, sig string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[ -r /proc/self/environ ] || { echo noproc; exit 0; }\nm=%s\n", quote(markerVar+"="+marker))
	b.WriteString(`if printf 'a\0' | grep -qzx a 2>/dev/null; then
  pids=$(grep -lszxF -e "$m" /proc/[0-9]*/environ | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p')
else
  pids=; for d in /proc/[0-9]*; do
    tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qxF -e "$m" && pids="$pids ${d#/proc/}"
  done
fi
`)
	if sig != "" {
		// Whole groups are signalled at once, as killpg does: one process
		// at a time, a shell could see its child die of the signal and exit
		// with 128+N before its own signal arrives.
		fmt.Fprintf(&b, `for g in $(for p in $pids; do sed -n 's/^.*) [A-Za-z] [0-9]* \([0-9]*\) .*$/\1/p' /proc/$p/stat 2>/dev/null; done | sort -un); do
  [ "$g" -gt 1 ] && kill -s %[1]s -- -$g 2>/dev/null
done
[ -z "$pids" ] || kill -s %[1]s $pids 2>/dev/null
`, sig)
	}
	b.WriteString("echo pids $pids\n")
	return b.String()
}

// sweep runs sweepScript on a new session of the handle's connection and
// returns how many marked processes it found (and signalled, if sig is
// set). A sweep that times out closes the connection, which marks the
// handle disconnected.
func (h *handle) sweep(sig syscall.Signal) (int, error) {
	name := ""
	if sig != 0 {
		name = string(signalNames[sig])
	}
	// Signal and GroupAlive take no context: the bound is the provider's.
	ctx, cancel := context.WithTimeout(context.Background(), sweepTimeout)
	defer cancel()
	script := sweepScript(h.marker, name)
	text, ok, err := h.shell.sweep(ctx, script)
	if !ok {
		var out bytes.Buffer
		err = run(ctx, h.client, script, nil, &out)
		text = out.String()
	} else if err != nil && ctx.Err() != nil {
		_ = h.client.Close() // as run does: a connection this slow counts as dropped
	}
	if err != nil {
		return 0, fmt.Errorf("find the pane's processes on %s: %w", h.target, err)
	}
	fields := strings.Fields(text)
	switch {
	case len(fields) == 1 && fields[0] == "noproc":
		return 0, errNoProc
	case len(fields) == 0 || fields[0] != "pids":
		return 0, fmt.Errorf("find the pane's processes on %s: unexpected output %q", h.target, text)
	}
	return len(fields) - 1, nil
}

// requestTimeout bounds the wait for the server's answer to a request on
// the pane's session: a server, or a session process of it, that stopped
// answering must not hold the caller.
const requestTimeout = 5 * time.Second

// errNoAnswer is wrapped by the error of a request the server did not
// answer within requestTimeout.
var errNoAnswer = fmt.Errorf("no answer within %v (the server, or the pane's session process on it, is not responding)", requestTimeout)

// request sends a session request and waits for the answer up to
// requestTimeout, or until Close. The request itself, which only the
// connection's end can interrupt, runs on a goroutine of the handle's that
// Close joins after closing the connection.
func (h *handle) request(name string, payload []byte) (bool, error) {
	type answer struct {
		ok  bool
		err error
	}
	answers := make(chan answer, 1)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false, fmt.Errorf("%s request to %s: the pty is closed", name, h.target)
	}
	h.wg.Go(func() {
		ok, err := h.sess.SendRequest(name, true, payload)
		answers <- answer{ok, err}
	})
	h.mu.Unlock()
	t := time.NewTimer(requestTimeout)
	defer t.Stop()
	select {
	case a := <-answers:
		return a.ok, a.err
	case <-t.C:
		return false, errNoAnswer
	case <-h.closing:
		return false, fmt.Errorf("%s request to %s: the pty was closed", name, h.target)
	}
}

// killSettle is how long Signal(SIGKILL) waits for the session to end
// before it hangs up.
const killSettle = 2 * time.Second

// Signal delivers sig to the pane's processes on the host:
//
//   - first as a "signal" request, which OpenSSH 7.9+ turns into killpg on
//     the session leader's group, except for root logins, which it refuses
//     (they run without privilege separation);
//   - when that is refused, and always for SIGKILL (which must also reach
//     members that left the group), by a sweep: every live process carrying
//     the pane's marker gets sig, from a second session (swept again while
//     none shows the marker, as during an exec: sweepAgain);
//   - without /proc on the host, a refused SIGHUP, SIGTERM or SIGKILL hangs
//     up instead (sshd closes the PTY, so the kernel sends SIGHUP to the
//     remote session), and a refused SIGINT or SIGQUIT is typed as ^C or ^\
//     (reaching the foreground group while the terminal has ISIG on).
//
// After the session ended, only the sweep runs: background members may
// outlive the leader. An SIGKILL that has not ended the session within
// killSettle hangs up as well.
func (h *handle) Signal(sig syscall.Signal) error {
	name, known := signalNames[sig]
	if !known {
		return fmt.Errorf("send %v to %s: SSH hosts are signalled by name, and %v has none in RFC 4254", sig, h.target, sig)
	}
	if h.ended() {
		if h.isGone() {
			return nil // Nothing left: the goal of every signal we send.
		}
		if _, err := h.sweep(sig); err != nil && !errors.Is(err, errNoProc) {
			return h.explain(err)
		}
		return nil
	}
	ok, err := h.request("signal", ssh.Marshal(struct{ Signal string }{string(name)}))
	if errors.Is(err, errNoAnswer) {
		// A sweep or a hang-up would wait on the same silent connection.
		return fmt.Errorf("send %v to %s: %w", sig, h.target, err)
	}
	accepted := ok && err == nil
	if accepted && sig != syscall.SIGKILL {
		return nil
	}
	_, serr := h.sweepAgain(sig, signalAgain, h.waitDone)
	switch {
	case serr == nil && sig == syscall.SIGKILL, accepted:
		h.settle()
	case serr == nil:
	case sig == syscall.SIGHUP || sig == syscall.SIGTERM || sig == syscall.SIGKILL:
		h.hangUp()
	case sig == syscall.SIGINT || sig == syscall.SIGQUIT:
		key := map[syscall.Signal]string{syscall.SIGINT: "\x03", syscall.SIGQUIT: "\x1c"}[sig]
		if _, err := h.Write([]byte(key)); err != nil {
			return fmt.Errorf("send %v to %s through the terminal: %w", sig, h.target, err)
		}
	default:
		return fmt.Errorf("send %v to %s: the server refused it (OpenSSH forwards signals from 7.9 on, and not to root logins), and %w", sig, h.target, serr)
	}
	return nil
}

// settle waits up to killSettle for the session to end, then hangs up.
func (h *handle) settle() {
	t := time.NewTimer(killSettle)
	defer t.Stop()
	select {
	case <-h.waitDone:
	case <-h.closing:
	case <-t.C:
		h.hangUp()
	}
}

// hangUp closes the session's channel on purpose.
func (h *handle) hangUp() {
	h.mu.Lock()
	h.hungUp = true
	h.mu.Unlock()
	_ = h.sess.Close() // Best effort: a closed channel is the goal.
}

func (h *handle) ended() bool {
	select {
	case <-h.waitDone:
		return true
	default:
		return false
	}
}

func (h *handle) isGone() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gone
}

// explain prefers the disconnection, if any, to the error it caused.
func (h *handle) explain(err error) error {
	if d := h.disconnectedErr(); d != nil {
		return d
	}
	return err
}

// GroupAlive reports whether any of the pane's processes still runs on the
// host. Until the session has ended the answer is yes without asking; after
// that a sweep looks for processes carrying the pane's marker, and once it
// finds none, twice (sweepAgain), the answer stays no. Without /proc on
// the host the answer is the channel's: no once the session ended. After
// Close or a dropped connection nothing can be seen: the answer is no
// (with ErrDisconnected for a drop), and the host's sshd has hung the
// session up.
func (h *handle) GroupAlive() (bool, error) {
	if !h.ended() || h.isGone() {
		return !h.ended(), nil
	}
	select {
	case <-h.closing:
		return false, nil
	default:
	}
	if d := h.disconnectedErr(); d != nil {
		return false, d
	}
	n, err := h.sweepAgain(0, goneAgain, nil)
	if err != nil && !errors.Is(err, errNoProc) {
		if d := h.disconnectedErr(); d != nil {
			return false, d
		}
		return true, err
	}
	if n > 0 {
		return true, nil
	}
	h.mu.Lock()
	h.gone = true
	h.mu.Unlock()
	return false, nil
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
