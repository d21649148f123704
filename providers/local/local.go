// Package local opens sandboxes as processes on this machine, each on its own
// pseudo-terminal (github.com/creack/pty) as the leader of a new session and
// process group.
//
// It owns starting the child, the master end of its PTY, signalling its
// process group, reaping it, and verifying that the group is gone. It keeps
// no registry: the session package owns the handles it returns.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// Provider opens local PTYs. Its zero value is ready to use.
type Provider struct {
	// Shell is run when a spec has no command; empty means $SHELL, else /bin/sh.
	Shell string
}

// New returns a local provider that runs shell for specs without a command.
func New(shell string) *Provider { return &Provider{Shell: shell} }

func (p *Provider) shell() string {
	if p.Shell != "" {
		return p.Shell
	}
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	return "/bin/sh"
}

// Open starts spec's command on a new PTY. The child is the leader of a new
// session and process group with the PTY as its controlling terminal, sees
// TERM from the spec, and has SIGINT and SIGQUIT at their default actions.
// The parent's copy of the slave end is closed as soon as the child runs;
// if starting fails or ctx is cancelled, both ends are closed and any child
// started is killed and reaped before Open returns (contracts S1, S3).
func (p *Provider) Open(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open local pty for %q: %w", spec.Name, context.Cause(ctx))
	}
	prepareProcess()
	argv := spec.Command
	if len(argv) == 0 {
		argv = []string{p.shell()}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = childEnv(os.Environ(), spec)

	master, tty, err := openPTY(spec.Size)
	if err != nil {
		return nil, fmt.Errorf("open local pty for %q: %w", spec.Name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	startErr := cmd.Start()
	// The child holds its own copy now; keeping ours would stop the master
	// from ever seeing EOF (S3).
	_ = tty.Close() // Best effort: nothing to do if closing our copy fails.
	if startErr != nil {
		_ = master.Close() // Best effort: the start error is what the user needs.
		return nil, fmt.Errorf("start %q for %q: %w (check the command and workspace in the config)", argv[0], spec.Name, startErr)
	}
	h := newHandle(master, cmd)
	if testHookAfterStart != nil {
		testHookAfterStart(h.pgid)
	}
	if err := ctx.Err(); err != nil {
		// Cancelled while starting: the caller must own nothing (S1).
		h.abandon()
		return nil, fmt.Errorf("open local pty for %q: %w", spec.Name, context.Cause(ctx))
	}
	return h, nil
}

// testHookAfterStart, when set by a test, runs between starting the child and
// handing it to the caller: a gate to cancel the start at that step.
var testHookAfterStart func(pid int)

// childEnv is the parent's environment without variables that describe the
// parent's terminal, plus TERM and the spec's own variables.
func childEnv(parent []string, spec providers.Spec) []string {
	drop := []string{"TERM", "COLUMNS", "LINES", "TMUX", "TMUX_PANE", "STY", "TERM_PROGRAM", "TERM_PROGRAM_VERSION"}
	env := make([]string, 0, len(parent)+len(spec.Env)+1)
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM="+spec.TermOrDefault())
	return append(env, spec.Env...)
}

// handle is one running child and the master end of its PTY.
type handle struct {
	master *os.File
	cmd    *exec.Cmd
	pgid   int

	waitDone chan struct{} // closed once the child is reaped
	status   providers.ExitStatus
	waitErr  error

	closeOnce sync.Once
	closeErr  error

	// gone is set once the session was seen empty after the leader was
	// reaped. From then on its process group number may be reused by an
	// unrelated process: nothing is signalled or checked again.
	gone atomic.Bool
}

func newHandle(master *os.File, cmd *exec.Cmd) *handle {
	h := &handle{master: master, cmd: cmd, pgid: cmd.Process.Pid, waitDone: make(chan struct{})}
	// The reaper is the only caller of cmd.Wait; it ends when the child
	// exits, which every teardown path forces.
	go h.reap()
	return h
}

func (h *handle) reap() {
	defer close(h.waitDone)
	err := h.cmd.Wait()
	defer func() {
		// Usually nothing outlives the leader: note it now, before its
		// group number can be reused.
		if alive, _ := h.sessionAlive(); !alive {
			h.gone.Store(true)
		}
	}()
	h.status = exitStatus(h.cmd.ProcessState)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		h.waitErr = fmt.Errorf("wait for pid %d: %w", h.pgid, err)
	}
}

func exitStatus(ps *os.ProcessState) providers.ExitStatus {
	if ps == nil {
		return providers.ExitStatus{Code: -1, Unknown: true}
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return providers.ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return providers.ExitStatus{Code: ps.ExitCode()}
}

// abandon kills and reaps a child nobody will own, and closes the master.
func (h *handle) abandon() {
	_ = h.Signal(syscall.SIGKILL) // Best effort: the group may already be gone.
	<-h.waitDone
	// The kernel finishes killing the rest of the group asynchronously and
	// has no event for it: poll briefly so no member outlives Open.
	for delay := time.Millisecond; delay < time.Second; delay *= 2 {
		if alive, err := h.GroupAlive(); !alive || err != nil {
			break
		}
		time.Sleep(delay)
	}
	_ = h.Close() // Best effort: nothing is left to report to.
}

// Read reads output. An EIO from the master, which Linux returns once every
// slave descriptor is closed, is the end of output.
func (h *handle) Read(p []byte) (int, error) {
	n, err := h.master.Read(p)
	if err != nil && (errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrClosed)) {
		err = io.EOF
	}
	return n, err
}

func (h *handle) Write(p []byte) (int, error) { return h.master.Write(p) }

func (h *handle) Resize(sz providers.Size) error {
	if err := setSize(h.master, sz); err != nil {
		return fmt.Errorf("resize pty to %v: %w", sz, err)
	}
	return nil
}

// Signal sends sig to every process group of the child's session: the
// child's own and, under a shell with job control, each job's.
func (h *handle) Signal(sig syscall.Signal) error {
	if h.gone.Load() {
		return nil
	}
	groups, scanErr := sessionGroups(h.pgid, h.pgid)
	if !slices.Contains(groups, h.pgid) {
		groups = append(groups, h.pgid)
	}
	var errs []error
	for _, pg := range groups {
		if err := syscall.Kill(-pg, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			// ESRCH: already gone, the goal of every signal we send.
			errs = append(errs, fmt.Errorf("send %v to process group %d: %w", sig, pg, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(append(errs, scanErr)...)
	}
	return nil
}

func (h *handle) Wait(ctx context.Context) (providers.ExitStatus, error) {
	select {
	case <-h.waitDone:
		return h.status, h.waitErr
	case <-ctx.Done():
		return providers.ExitStatus{}, context.Cause(ctx)
	}
}

// GroupAlive reports whether any process of the child's session (its
// group and, under job control, its jobs' groups) still exists, after
// reaping the members that are zombies of ours. While the leader has not
// been reaped the session is alive by definition; reaping before that
// could steal the leader's status from cmd.Wait.
func (h *handle) GroupAlive() (bool, error) {
	select {
	case <-h.waitDone:
	default:
		return true, nil
	}
	if h.gone.Load() {
		return false, nil
	}
	alive, err := h.sessionAlive()
	if !alive && err == nil {
		h.gone.Store(true)
	}
	return alive, err
}

// sessionAlive reaps what it can and reports whether any process of the
// session is left. Call it only once the leader was reaped.
func (h *handle) sessionAlive() (bool, error) {
	reapGroup(h.pgid)
	if alive, err := groupExists(h.pgid); alive || err != nil {
		return alive, err
	}
	groups, err := sessionGroups(h.pgid, -1)
	return len(groups) > 0, err
}

// Close closes the master end. Because the master is in non-blocking mode
// under Go's poller, a Read in progress returns at once.
func (h *handle) Close() error {
	h.closeOnce.Do(func() {
		if err := h.master.Close(); err != nil {
			h.closeErr = fmt.Errorf("close pty master: %w", err)
		}
	})
	return h.closeErr
}
