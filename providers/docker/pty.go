package docker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/sandmux/sandmux/providers"
)

// Bounds on engine calls made without a caller's context (GroupAlive,
// Signal, Close): a hung engine must not hang a teardown.
const (
	opTimeout    = 15 * time.Second
	closeTimeout = 30 * time.Second
)

// errClosed is returned by Wait when the PTY was closed before the exec's
// exit was seen, and by control methods called after Close.
var errClosed = errors.New("docker pty is closed")

// errNoSession says the helper found no process of a running exec.
var errNoSession = errors.New("no process in the container carries the exec's SANDMUX_EXEC token (the image needs /bin/sh and grep, and the command must keep its environment)")

// handle is one exec with a TTY in a container, over a hijacked connection.
type handle struct {
	e       *engine
	cid     string // container id
	created bool   // sandmux created the container (from Options.Image)
	remove  bool   // and removes it on Close
	execID  string
	token   string // SANDMUX_EXEC in the exec's environment
	user    string // the exec's user option
	hostPid int    // the exec's pid as the engine sees it: its session id there

	conn net.Conn
	out  *bufio.Reader // the hijacked stream; raw bytes in TTY mode

	ctx    context.Context // ends every engine call of the handle on Close
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	ops      sync.WaitGroup // control calls in flight
	sessions []string       // session ids inside the container
	sent     map[syscall.Signal]bool

	eof     chan struct{} // closed when the stream ends: a cue to check the exit
	eofOnce sync.Once

	exited    chan struct{} // closed by the watcher once status is known
	status    providers.ExitStatus
	waitErr   error
	watchDone chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Read reads the exec's terminal output. Once the stream ends, or after
// Close, it returns io.EOF.
func (h *handle) Read(p []byte) (int, error) {
	n, err := h.out.Read(p)
	if err != nil {
		h.eofOnce.Do(func() { close(h.eof) })
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
			return n, io.EOF
		}
		return n, fmt.Errorf("read from docker exec: %w", err)
	}
	return n, nil
}

// Write sends input to the exec's terminal.
func (h *handle) Write(p []byte) (int, error) {
	n, err := h.conn.Write(p)
	if err != nil {
		return n, fmt.Errorf("write to docker exec: %w", err)
	}
	return n, nil
}

// begin admits one control call, unless the handle is closed.
func (h *handle) begin() (context.Context, context.CancelFunc, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, errClosed
	}
	h.ops.Add(1)
	ctx, cancel := context.WithTimeout(h.ctx, opTimeout)
	return ctx, func() { cancel(); h.ops.Done() }, nil
}

// Resize sets the exec's terminal size.
func (h *handle) Resize(sz providers.Size) error {
	ctx, end, err := h.begin()
	if err != nil {
		return err
	}
	defer end()
	if _, err := h.e.ExecResize(ctx, h.execID, client.ExecResizeOptions{Height: uint(sz.Rows), Width: uint(sz.Cols)}); err != nil {
		return fmt.Errorf("resize docker exec to %v: %w", sz, err)
	}
	return nil
}

// Signal sends sig to every process in the exec's session inside the
// container (see sessionScript). SIGKILL to a container sandmux created
// kills the container instead: its PID 1 dies, and the kernel kills
// everything else in its pid namespace, whatever the image holds.
func (h *handle) Signal(sig syscall.Signal) error {
	ctx, end, err := h.begin()
	if err != nil {
		return err
	}
	defer end()
	h.mu.Lock()
	h.sent[sig] = true
	known := h.sessions
	h.mu.Unlock()
	if sig == syscall.SIGKILL && h.created {
		if _, err := h.e.ContainerKill(ctx, h.cid, client.ContainerKillOptions{Signal: "KILL"}); err != nil && !gone(err) {
			return fmt.Errorf("kill container %.12s: %w", h.cid, err)
		}
		return nil
	}
	if len(known) == 0 {
		// Not found at the start: look again (see sessionScript).
		if known, err = h.e.findSessions(ctx, h.cid, h.user, h.token, nil); err != nil && !gone(err) {
			return fmt.Errorf("find the docker exec's session to send %v: %w", sig, err)
		}
		select {
		case <-h.exited:
		default:
			if len(known) == 0 {
				return fmt.Errorf("send %v to docker exec: %w", sig, errNoSession)
			}
		}
	}
	sessions, _, err := h.e.signalSessions(ctx, h.cid, sig, h.token, known)
	switch {
	case err != nil && gone(err):
		return nil // The container stopped: every process in it is gone.
	case err != nil:
		return fmt.Errorf("send %v to docker exec session: %w", sig, err)
	}
	h.mu.Lock()
	h.sessions = sessions
	h.mu.Unlock()
	return nil
}

// Wait waits until the watcher has seen the exec end.
func (h *handle) Wait(ctx context.Context) (providers.ExitStatus, error) {
	select {
	case <-h.exited:
		return h.status, h.waitErr
	case <-ctx.Done():
		return providers.ExitStatus{}, context.Cause(ctx)
	}
}

// GroupAlive asks the engine for the container's processes, as its host's
// ps sees them (GET /containers/{id}/top?ps_args=-eo pid,sid,stat), and
// reports whether one that is not a zombie is still in the exec's session.
// Asking the engine rather than running a second exec inside the container
// keeps the check independent of what the image holds and cheap enough to
// poll. The engine's host must have a ps that knows -eo (procps does).
// Zombies are left out: PID 1 of the container reaps them, and sandmux
// cannot (containers sandmux creates run docker's init for this).
func (h *handle) GroupAlive() (bool, error) {
	if h.hostPid == 0 {
		return false, nil // the exec never started a process
	}
	ctx, end, err := h.begin()
	if err != nil {
		return false, err
	}
	defer end()
	top, err := h.e.ContainerTop(ctx, h.cid, client.ContainerTopOptions{Arguments: []string{"-eo", "pid,sid,stat"}})
	if err != nil {
		if gone(err) {
			return false, nil // stopped or removed: no process is left
		}
		return true, fmt.Errorf("list processes of container %.12s: %w", h.cid, err)
	}
	return sessionAlive(top, h.hostPid)
}

func sessionAlive(top client.ContainerTopResult, sid int) (bool, error) {
	col := map[string]int{}
	for i, t := range top.Titles {
		col[t] = i
	}
	si, ok1 := col["SID"]
	st, ok2 := col["STAT"]
	if !ok1 || !ok2 {
		return true, fmt.Errorf("the engine's ps gave columns %q, not SID and STAT: it needs a ps that knows -eo pid,sid,stat (procps)", top.Titles)
	}
	want := strconv.Itoa(sid)
	for _, p := range top.Processes {
		if len(p) > max(si, st) && p[si] == want && (p[st] == "" || p[st][0] != 'Z') {
			return true, nil
		}
	}
	return false, nil
}

// watch learns how the exec ended. The engine has no call that waits for an
// exec; it emits an exec_die event, so the watcher inspects the exec when
// one arrives for it, when the container dies, and when the stream ends. If
// the event stream breaks it polls with a backoff instead.
func (h *handle) watch(ev client.EventsResult, stopEvents context.CancelFunc) {
	defer close(h.watchDone)
	defer func() {
		stopEvents()
		for range ev.Err {
			// Drain until the client's event goroutine has returned.
		}
	}()
	msgs, errs, eof := ev.Messages, ev.Err, h.eof
	var poll *time.Timer
	delay := 50 * time.Millisecond
	armPoll := func() {
		if poll == nil {
			poll = time.NewTimer(delay)
		} else {
			poll.Reset(delay)
		}
		delay = min(2*delay, 2*time.Second)
	}
	defer func() {
		if poll != nil {
			poll.Stop()
		}
	}()
	var pollC <-chan time.Time
	for check := true; ; {
		if check {
			st, done, err := h.inspectExit()
			if done {
				h.status, h.waitErr = st, err
				close(h.exited)
				return
			}
			if err != nil || msgs == nil {
				armPoll()
				pollC = poll.C
			}
		}
		select {
		case m := <-msgs:
			check = relevant(m, h.execID)
		case <-errs:
			msgs, errs = nil, nil
			check = true
		case <-eof:
			eof, check = nil, true
		case <-pollC:
			pollC, check = nil, true
		case <-h.ctx.Done():
			h.status, h.waitErr = providers.ExitStatus{Code: -1, Unknown: true}, errClosed
			close(h.exited)
			return
		}
	}
}

func relevant(m events.Message, execID string) bool {
	switch m.Action {
	case "die", "destroy", "kill", "stop":
		return true
	}
	return m.Actor.Attributes["execID"] == execID
}

// inspectExit asks the engine whether the exec has ended, and how.
func (h *handle) inspectExit() (providers.ExitStatus, bool, error) {
	ctx, cancel := context.WithTimeout(h.ctx, opTimeout)
	defer cancel()
	in, err := h.e.ExecInspect(ctx, h.execID, client.ExecInspectOptions{})
	switch {
	case err != nil && gone(err):
		// The engine forgot the exec: its container was removed.
		return providers.ExitStatus{Code: -1, Unknown: true}, true, nil
	case err != nil:
		return providers.ExitStatus{}, false, err
	case !ended(in):
		return providers.ExitStatus{}, false, nil
	}
	return h.exitStatus(in.ExitCode), true, nil
}

// exitStatus turns the engine's exit code into a status. The engine reports
// death by signal N as 128+N, like a shell, so the two cannot be told apart;
// it counts as a signal only when sandmux sent that signal.
func (h *handle) exitStatus(code int) providers.ExitStatus {
	if code > 128 {
		sig := syscall.Signal(code - 128)
		h.mu.Lock()
		sent := h.sent[sig]
		h.mu.Unlock()
		if sent {
			return providers.ExitStatus{Code: -1, Signal: sig}
		}
	}
	return providers.ExitStatus{Code: code}
}
