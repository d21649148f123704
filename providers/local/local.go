// Package local opens sandboxes as processes on this machine, each on its own
// pseudo-terminal (github.com/creack/pty) as the leader of a new session and
// process group, inside a cgroup of its own where sandmux may make one.
//
// It owns starting the child, the master end of its PTY, signalling every
// process of the pane (its session, and its cgroup or the processes
// carrying its marker: see contain_linux.go), reaping the child, reaping
// the orphans sandmux adopts as a subreaper (reaper_linux.go), and
// verifying that the pane is gone. The session package owns the handles it
// returns; the only registry here is the reaper's list of live panes.
package local

import (
	"context"
	"errors"
	"fmt"
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
	// NoCgroup turns off the cgroup containment, as SANDMUX_NO_CGROUP=1
	// does for the whole process: panes are contained by the fallback.
	NoCgroup bool
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
// It starts inside a cgroup of its own where one can be made, and carries
// SANDMUX_PANE_ID in its environment either way (see containment).
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
	master, tty, err := openPTY(spec.Size)
	if err != nil {
		return nil, fmt.Errorf("open local pty for %q: %w", spec.Name, err)
	}
	marker := newMarker()
	var cg *cgroup
	if !p.NoCgroup {
		cg, _ = newCgroup() // No cgroup: the fallback contains the pane instead.
	}
	cmd, cg, startErr := startChild(argv, spec, childEnv(os.Environ(), spec, marker), tty, cg)
	// The child holds its own copy now; keeping ours would stop the master
	// from ever seeing EOF (S3).
	_ = tty.Close() // Best effort: nothing to do if closing our copy fails.
	if startErr != nil {
		_ = master.Close() // Best effort: the start error is what the user needs.
		return nil, startError(argv[0], startErr)
	}
	h := newHandle(master, cmd, cg, marker)
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

// startError says why argv0 did not start, once: the caller names the
// pane, and the hint fits wherever the command came from.
func startError(argv0 string, err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound) {
		return fmt.Errorf("%w: install %s or give its full path", ee.Err, argv0)
	}
	return fmt.Errorf("run %s: %w", argv0, err)
}

// startChild starts the child on tty, cloned into cg when there is one. If
// that fails (a kernel without CLONE_INTO_CGROUP, a cgroup sandmux may make
// but not use), it removes cg and starts the child without it: the pane is
// then contained by the fallback. It returns the cgroup the child is in.
func startChild(argv []string, spec providers.Spec, env []string, tty *os.File, cg *cgroup) (*exec.Cmd, *cgroup, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
	}
	err := cmd.Start()
	if err != nil && cg != nil {
		_ = cg.remove() // Best effort: nothing was ever in it.
		return startChild(argv, spec, env, tty, nil)
	}
	return cmd, cg, err
}

// testHookAfterStart, when set by a test, runs between starting the child and
// handing it to the caller: a gate to cancel the start at that step.
var testHookAfterStart func(pid int)

// childEnv is the parent's environment without variables that describe the
// parent's terminal (or the parent's own pane, when sandmux runs in one),
// plus TERM, the spec's own variables, and the pane's marker last, so that
// no spec can override it.
func childEnv(parent []string, spec providers.Spec, marker string) []string {
	drop := []string{"TERM", "COLUMNS", "LINES", "TMUX", "TMUX_PANE", "STY", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", markerVar}
	env := make([]string, 0, len(parent)+len(spec.Env)+1)
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			env = append(env, kv)
		}
	}
	env = append(env, "TERM="+spec.TermOrDefault())
	env = append(env, spec.Env...)
	return append(env, marker)
}

// handle is one running child and the master end of its PTY.
type handle struct {
	master *ptyMaster
	cmd    *exec.Cmd
	pgid   int
	cg     *cgroup // nil: contained by the fallback
	marker string  // markerVar=<id>, in the environment of the pane's processes

	seenMu sync.Mutex
	seen   map[int]uint64 // pid → start time of processes once found marked (the fallback)

	waitDone chan struct{} // closed once the child is reaped
	status   providers.ExitStatus
	waitErr  error

	closeOnce sync.Once
	closeErr  error

	// gone is set once the session was seen empty after the leader was
	// reaped. From then on its process group number may be reused by an
	// unrelated process: nothing is signalled or checked again.
	gone atomic.Bool

	usage usageState // the CPU figure last reported (usage_linux.go)
}

func newHandle(master *ptyMaster, cmd *exec.Cmd, cg *cgroup, marker string) *handle {
	h := &handle{master: master, cmd: cmd, pgid: cmd.Process.Pid, cg: cg, marker: marker, waitDone: make(chan struct{})}
	orphans.acquire(h.pgid, h.cgroupName())
	orphans.notePidfd(h.pgid)
	// The reaper is the only caller of cmd.Wait; it ends when the child
	// exits, which every teardown path forces.
	go h.reap()
	return h
}

func (h *handle) reap() {
	defer close(h.waitDone)
	awaitExit(h.cmd.Process.Pid)
	err := h.cmd.Wait()
	defer func() {
		// Usually nothing outlives the leader: note it now, before its
		// group number can be reused.
		if alive, err := h.paneAlive(); !alive && err == nil {
			h.markGone()
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
// slave descriptor is closed, is the end of output, and so is Close.
func (h *handle) Read(p []byte) (int, error) { return h.master.Read(p) }

// ReadNow reads what output there is without waiting: 0 and no error
// when there is none yet. A paced pane's output is read this way on its
// pacer's tick, by one goroutine for every such pane (package session),
// and its master then wakes nobody when the child writes (master_linux.go).
func (h *handle) ReadNow(p []byte) (int, error) { return h.master.ReadNow(p) }

func (h *handle) Write(p []byte) (int, error) { return h.master.Write(p) }

// WriteNow writes what the PTY takes at once, without waiting (a key,
// written by the session on the model's loop).
func (h *handle) WriteNow(p []byte) (int, error) { return h.master.WriteNow(p) }

// PID is the pane's leader: the command sandmux started.
func (h *handle) PID() int { return h.pgid }

func (h *handle) Resize(sz providers.Size) error {
	if err := setSize(h.master, sz); err != nil {
		return fmt.Errorf("resize pty to %v: %w", sz, err)
	}
	return nil
}

// Signal sends sig to every process group of the pane: those of the
// child's session (its own and, under a shell with job control, each
// job's) and those of the processes contained beyond it (in its cgroup, or
// carrying its marker). Whole groups are signalled at once, as the terminal
// would: one process at a time, a shell could see its child die of the
// signal and exit with 128+N before its own signal arrives. SIGKILL also
// goes through cgroup.kill, which no fork can outrun.
func (h *handle) Signal(sig syscall.Signal) error {
	if h.gone.Load() {
		return nil
	}
	var errs []error
	if sig == syscall.SIGKILL && h.cg != nil && !h.cg.isRemoved() {
		if err := h.cg.kill(); err != nil {
			errs = append(errs, err)
		}
	}
	groups, scanErr := sessionGroups(h.pgid, h.pgid)
	if !slices.Contains(groups, h.pgid) {
		groups = append(groups, h.pgid)
	}
	extra, extraErr := h.containedGroups()
	for _, pg := range extra {
		if !slices.Contains(groups, pg) {
			groups = append(groups, pg)
		}
	}
	for _, pg := range groups {
		if err := syscall.Kill(-pg, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			// ESRCH: already gone, the goal of every signal we send.
			errs = append(errs, fmt.Errorf("send %v to process group %d: %w", sig, pg, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(append(errs, scanErr, extraErr)...)
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

// GroupAlive reports whether any process of the pane is still alive: of
// the child's session (its group and, under job control, its jobs'
// groups), and of its cgroup, or in the fallback carrying its marker. It
// first reaps the pane's zombies. While the leader has not been reaped the
// pane is alive by definition; reaping before that could steal the
// leader's status from cmd.Wait.
func (h *handle) GroupAlive() (bool, error) {
	select {
	case <-h.waitDone:
	default:
		return true, nil
	}
	if h.gone.Load() {
		return false, nil
	}
	alive, err := h.paneAlive()
	if !alive && err == nil {
		h.markGone()
	}
	return alive, err
}

// paneAlive reaps what it can and reports whether any process of the pane
// is left. Call it only once the leader was reaped.
func (h *handle) paneAlive() (bool, error) {
	orphans.reapOrphans()
	if alive, err := h.sessionAlive(); alive || err != nil {
		return alive, err
	}
	return h.containedAlive()
}

// markGone notes the pane verified empty: nothing is signalled or checked
// again, and its cgroup is removed.
func (h *handle) markGone() {
	h.gone.Store(true)
	// Gone, but those re-parented to sandmux may still be zombies the
	// reaper has not reached: one pass now, while the pane's cgroup still
	// marks them as its own, so none outlives the verification (C13).
	orphans.reapOrphans()
	if h.cg != nil {
		_ = h.cg.remove() // Best effort: Close removes it again and reports.
	}
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

// Close closes the master end. A Read in progress returns at once: it
// waits on a duplicate registered with Go's poller, which Close closes.
// It also releases the pane's containment: a cgroup still holding
// processes (teardown verifies it empty first) is killed, and removed
// once empty, within a short bound.
func (h *handle) Close() error {
	h.closeOnce.Do(func() {
		var errs []error
		if err := h.master.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close pty master: %w", err))
		}
		// The pane's processes are gone, but those re-parented to sandmux
		// may still be zombies the reaper has not reached: one pass now,
		// while the pane's cgroup and session still mark them as its own,
		// so that none outlives its pane's teardown (C13, C14).
		orphans.reapOrphans()
		if h.cg != nil {
			errs = append(errs, h.cg.release())
		}
		orphans.release(h.pgid, h.cgroupName())
		h.closeErr = errors.Join(errs...)
	})
	return h.closeErr
}

func (h *handle) cgroupName() string {
	if h.cg == nil {
		return ""
	}
	return h.cg.name
}

// CPUUsage reports the CPU time the pane's processes used, from its
// cgroup; ok is false when the pane has none (the fallback). After Close it
// keeps returning the last figure read.
func (h *handle) CPUUsage() (used time.Duration, ok bool) {
	if h.cg == nil {
		return 0, false
	}
	used, err := h.cg.cpuUsage()
	return used, err == nil || h.cg.isRemoved()
}

// Descriptor registers the local provider: its workspace is a directory on
// this machine, and its one setting, the shell, is the config's typed
// [providers.local] table.
var Descriptor = providers.Descriptor{
	Name:      "local",
	New:       func(d providers.Deps) providers.Provider { return New(d.Shell) },
	Workspace: providers.WorkspaceDir,
}
