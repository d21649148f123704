package daemon

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/endpoint"
)

// newSession starts the server as the leader of a new session and process
// group, with no controlling terminal: the client's terminal closing
// (SIGHUP) or its Ctrl-C (SIGINT to the foreground group) never reaches it.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// exited reports whether child pid has exited, without reaping it
// (WNOWAIT), so that cmd.Wait can reap it and report its status.
func exited(pid int) (bool, error) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("watch the server process %d: %w", pid, err)
		}
		// WNOHANG leaves info zero while the child runs.
		return info.Signo != 0, nil
	}
}

// signalGroup sends SIGTERM, or SIGKILL when kill, to the process group
// of leader pid.
func signalGroup(pid int, kill bool) {
	sig := unix.SIGTERM
	if kill {
		sig = unix.SIGKILL
	}
	_ = unix.Kill(-pid, sig) // Best effort: it may have exited meanwhile.
}

// openLock opens the start lock of the server at socket: the socket's
// path plus ".lock", created 0600. It lives next to the socket so that
// every client naming that socket finds the same lock. Starting never
// removes it (a late-comer could lock a new file while another holds the
// old one); the server removes it once it stopped (RemoveLock), so lock
// files do not pile up. It is opened close-on-exec, so the server started
// under it does not inherit (and hold) the lock; only in a directory
// endpoint.PrepareDir accepts; never through a symbolic link (which could
// make sandmux create a file where someone else chose); and it must then
// be this user's own file (A4).
func openLock(socket string) (*os.File, error) {
	if err := endpoint.PrepareDir(socket); err != nil {
		return nil, fmt.Errorf("take the server start lock: %w", err)
	}
	f, err := openNoFollow(socket+".lock", unix.O_CREAT)
	if err != nil {
		return nil, err
	}
	if err := endpoint.CheckOwnFile(f); err != nil {
		_ = f.Close() // Best effort: never locked.
		return nil, fmt.Errorf("take the server start lock: %w", err)
	}
	return f, nil
}

// openNoFollow opens path read-write, close-on-exec and never through a
// symbolic link, with extra flags (O_CREAT makes it 0600).
func openNoFollow(path string, flags int) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("open the server start lock %s: it is a symbolic link, which sandmux never follows: remove it and try again: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open the server start lock: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	return os.NewFile(uintptr(fd), path), nil
}

// tryLock takes the lock without waiting, reporting whether it did; the
// kernel releases it when f is closed or this process dies.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take the server start lock %s: %w", f.Name(), err)
	}
	return true, nil
}

// answeredBy is the pid of the server answering at socket, as the kernel
// recorded it when that server listened (SO_PEERCRED), or 0 when none
// answers.
func answeredBy(socket string) (int, error) {
	c, err := endpoint.Dial(socket)
	if errors.Is(err, endpoint.ErrNoServer) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("check for a running server: %w", err)
	}
	defer c.Close() // Best effort: it was only a probe.
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("check who serves %s: %w", socket, err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, fmt.Errorf("check who serves %s: %w", socket, err)
	}
	if credErr != nil {
		return 0, fmt.Errorf("check who serves %s: %w", socket, credErr)
	}
	return int(cred.Pid), nil
}

// stderrIs reports whether this process's stderr is the file at path,
// and its size.
func stderrIs(path string) (int64, bool, error) {
	var fd, file unix.Stat_t
	if err := unix.Fstat(2, &fd); err != nil {
		return 0, false, fmt.Errorf("check where stderr goes: %w", err)
	}
	if err := unix.Stat(path, &file); errors.Is(err, unix.ENOENT) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, fmt.Errorf("check the server log: %w", err)
	}
	return fd.Size, fd.Dev == file.Dev && fd.Ino == file.Ino, nil
}

// redirectStdio points stdout and stderr at f.
func redirectStdio(f *os.File) error {
	for _, std := range []int{1, 2} {
		if err := unix.Dup3(int(f.Fd()), std, 0); err != nil {
			return fmt.Errorf("point fd %d at the new log %s: %w", std, f.Name(), err)
		}
	}
	return nil
}

// RemoveLock removes the start lock of the server at socket once that
// server has stopped, so the lock files of servers come and gone do not
// pile up in the socket directory. It removes it only while holding it:
// a client starting a server meanwhile keeps it. A client that opened the
// old file just before can then lock a removed file while another locks
// a new one; both start a server, and the one refused by Listen exits
// early, which Start takes as the other answering (see Start).
func RemoveLock(socket string) error {
	f, err := openNoFollow(socket+".lock", 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if ok, err := tryLock(f); !ok || err != nil {
		return err // held: a client is starting a server under it
	}
	if err := os.Remove(f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the server start lock: %w", err)
	}
	return nil
}
