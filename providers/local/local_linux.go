package local

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/providers"
)

var prepareOnce sync.Once

// resetSignals are the signals a pane always starts with at their default.
var resetSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGTERM}

// prepareProcess sets the process-wide state local children rely on, once:
//
//   - sandmux becomes a child subreaper, so the background processes of a
//     session whose leader exited are re-parented to sandmux and can be
//     reaped here; otherwise they would be left to PID 1, which in a
//     container may never reap them, and a kill could never be verified.
//   - The resetSignals get a Go handler if sandmux was started with them
//     ignored (nohup ignores SIGHUP, a shell's background job SIGINT and
//     SIGQUIT). Go resets handled signals to their defaults in a child but
//     passes ignored ones on, and a sandbox must be interruptible and die
//     of its teardown's hang-up. The one-slot channel is never read: Go
//     drops a signal when it is full, so sandmux keeps ignoring them itself.
func prepareProcess() {
	prepareOnce.Do(func() {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) // Best effort: without it, verification still works where PID 1 reaps.
		for _, sig := range resetSignals {
			if signal.Ignored(sig) {
				signal.Notify(make(chan os.Signal, 1), sig)
			}
		}
	})
}

// openPTY opens a PTY pair of the given size. The master is returned in
// non-blocking mode (pty.Open leaves it blocking), for the raw calls of
// ptyMaster; only the duplicates a wait uses are registered with Go's
// poller, so that Close interrupts a waiting Read or Write.
func openPTY(sz providers.Size) (master *ptyMaster, tty *os.File, err error) {
	m, t, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	nfd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = m.Close() // Best effort: the duplicate (if any) keeps the master open.
	if err != nil {
		_ = t.Close() // Best effort.
		return nil, nil, fmt.Errorf("duplicate pty master: %w", err)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		_ = unix.Close(nfd) // Best effort.
		_ = t.Close()       // Best effort.
		return nil, nil, fmt.Errorf("set pty master non-blocking: %w", err)
	}
	master = newPTYMaster(nfd)
	if sz.Cols > 0 && sz.Rows > 0 {
		if err := setSize(master, sz); err != nil {
			_ = master.Close() // Best effort.
			_ = t.Close()      // Best effort.
			return nil, nil, err
		}
	}
	return master, t, nil
}

// setSize sets the terminal size of the PTY m is the master of.
func setSize(m *ptyMaster, sz providers.Size) error {
	return m.raw(func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: sz.Rows, Col: sz.Cols})
	})
}

// reapGroup reaps every member of process group pgid that has exited and is
// a child of sandmux (through the subreaper, orphans are). It never blocks.
func reapGroup(pgid int) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-pgid, &ws, unix.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// groupExists asks the kernel whether any process is in group pgid.
func groupExists(pgid int) (bool, error) {
	err := unix.Kill(-pgid, 0)
	switch {
	case err == nil, errors.Is(err, unix.EPERM):
		return true, nil
	case errors.Is(err, unix.ESRCH):
		return false, nil
	default:
		return true, fmt.Errorf("check process group %d: %w", pgid, err)
	}
}

// member is one live process of a session.
type member struct{ pid, pgrp int }

// sessionGroups returns the process groups of the live members of session
// sid (the local child is a session leader, so sid is its pid). A shell
// with job control puts each job in a process group of its own, so the
// session, not the leader's group, is what a kill must reach and verify.
func sessionGroups(sid, skip int) (groups []int, err error) {
	members, err := sessionMembers(sid, skip)
	for _, m := range members {
		if !slices.Contains(groups, m.pgrp) {
			groups = append(groups, m.pgrp)
		}
	}
	return groups, err
}

// sessionMembers finds the live processes of session sid in a walk of
// /proc that began after the call (walks, shared with every pane asking
// at the same time), and reaps the members that are zombies of ours,
// except skip (the leader, which cmd.Wait reaps).
func sessionMembers(sid, skip int) ([]member, error) {
	procs, err := walks.procs()
	if err != nil {
		return nil, err
	}
	var members []member
	for _, p := range procs {
		if p.st.session != sid {
			continue // another session's
		}
		if p.st.state == 'Z' {
			if p.pid != skip {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(p.pid, &ws, unix.WNOHANG, nil) // Best effort: not ours, or reaped meanwhile.
			}
			continue
		}
		members = append(members, member{pid: p.pid, pgrp: p.st.pgrp})
	}
	return members, nil
}
