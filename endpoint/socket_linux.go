package endpoint

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dialTimeout bounds connecting to a socket: a live server accepts at once.
const dialTimeout = 5 * time.Second

// Listen replaces a stale socket that no server answers at and listens
// with mode 0600; a socket a server still answers at is refused (one
// server per name). A socket in Dir, the named servers' directory, makes
// that directory private first (PrepareDir: 0700, created if missing,
// refused if another user owns it or others may enter it); an explicit -S
// path's directory is the user's choice, and the peer check still guards
// it.
func Listen(path string) (*net.UnixListener, error) {
	if err := PrepareDir(path); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	// The umask makes the socket 0600 from the start, so it is never
	// reachable by others between bind and chmod.
	old := unix.Umask(0o177)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	unix.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	return l, nil
}

// removeStale removes a socket file that no server answers at, and refuses
// one that a server does.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket: remove it or choose another -S", path)
	}
	conn, err := Dial(path)
	if err == nil {
		_ = conn.Close() // Best effort: it was only a probe.
		return fmt.Errorf("a sandmux server already runs at %s: attach to it, or give another -L name", path)
	}
	if !errors.Is(err, ErrNoServer) {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	return nil
}

// Dial connects to the server at path, once it is sure that server is
// this user's (or root's): a socket in the named servers' directory is
// dialed only when that directory passes CheckDir, and a server whose
// process is another user's is refused before anything is sent to it
// (A4). ErrNoServer (wrapped) means none answers there; ErrNotYours
// (wrapped) that one of another user's does.
func Dial(path string) (*net.UnixConn, error) {
	if err := checkServerDir(path); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: dialTimeout}
	nc, err := d.Dial("unix", path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w at %s", ErrNoServer, path)
		}
		return nil, fmt.Errorf("connect to %s: %w", path, err)
	}
	c := nc.(*net.UnixConn)
	if err := checkServer(c, path); err != nil {
		_ = c.Close() // Best effort: nothing was sent on it.
		return nil, err
	}
	return c, nil
}

// PeerUID is the user id of the process at the other end of conn, as the
// kernel recorded it when it connected.
func PeerUID(conn *net.UnixConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return -1, fmt.Errorf("peer credentials: %w", credErr)
	}
	return int(cred.Uid), nil
}

// CheckPeer refuses a peer whose user is not this process's: the socket's
// mode already keeps others out, and this holds even where a -S path sits
// in a directory others can reach.
func CheckPeer(conn *net.UnixConn) error {
	uid, err := PeerUID(conn)
	if err != nil {
		return err
	}
	if uid != os.Getuid() {
		return fmt.Errorf("refused a client of uid %d: only uid %d may use this server", uid, os.Getuid())
	}
	return nil
}
