package endpoint

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// ErrNotYours means a socket, or the directory it is in, belongs to
// another user: a client refuses it before it sends a byte (A4), since
// whoever owns it would read every key, command and paste sent to it.
var ErrNotYours = errors.New("another user's")

// CheckDir checks that dir is a directory of this user's that nobody
// else may enter or write: the check a server makes of the named
// servers' directory before it listens there, and a client before it
// connects there or takes the start lock (A4). A symbolic link is
// refused, not followed. A missing dir wraps os.ErrNotExist.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check the socket directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("check the socket directory %s: no owner known", dir)
	case !fi.IsDir():
		return fmt.Errorf("socket directory %s is not a directory (%v, owned by %s): refused as %w; remove it and try again",
			dir, fi.Mode().Type(), owner(int(st.Uid)), ErrNotYours)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("socket directory %s belongs to %s, not to you (uid %d): refused as %w; remove it, or use -S with a path of yours",
			dir, owner(int(st.Uid)), os.Getuid(), ErrNotYours)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("socket directory %s is open to others (mode %v): chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}

// PrepareDir makes sure the directory of socket is fit to hold it and
// its start lock (A4): the named servers' directory (Dir) is created 0700
// when missing and must pass CheckDir. An explicit -S path's directory is
// the user's choice, but it must be this user's or root's, and one others
// may write must be sticky (as /tmp is), so that nobody else can swap
// the socket or the lock under it; the peer checks on both ends guard
// the rest.
func PrepareDir(socket string) error {
	if inDir(socket) {
		if err := os.MkdirAll(Dir(), 0o700); err != nil {
			return fmt.Errorf("create the socket directory: %w", err)
		}
		return CheckDir(Dir())
	}
	dir := filepath.Dir(socket)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check the directory of %s: %w", socket, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok || !fi.IsDir():
		return fmt.Errorf("the directory of %s is not a directory", socket)
	case int(st.Uid) != os.Getuid() && st.Uid != 0:
		return fmt.Errorf("the directory of %s belongs to %s, not to you (uid %d): refused as %w; choose a -S path in a directory of yours",
			socket, owner(int(st.Uid)), os.Getuid(), ErrNotYours)
	case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
		return fmt.Errorf("the directory of %s may be written by others (mode %v) and is not sticky: refused as %w; choose a -S path in a directory of yours",
			socket, fi.Mode().Perm(), ErrNotYours)
	}
	return nil
}

// CheckOwnFile refuses a file f this user did not make: a start lock that
// someone else planted where sandmux would create its own (A4).
func CheckOwnFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("check %s: %w", f.Name(), err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok || !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file: refused as %w; remove it and try again", f.Name(), ErrNotYours)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to %s, not to you: refused as %w; remove it and try again", f.Name(), owner(int(st.Uid)), ErrNotYours)
	}
	return nil
}

// checkServerDir refuses to connect to a socket in the named servers'
// directory when that directory is not this user's alone (A4). A missing
// directory means no server.
func checkServerDir(socket string) error {
	if !inDir(socket) {
		return nil
	}
	err := CheckDir(Dir())
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w at %s", ErrNoServer, socket)
	}
	return err
}

// checkServer refuses a server whose process is neither this user's nor
// root's, by the kernel's record of who listened (SO_PEERCRED), as tmux
// allows root's (A4).
func checkServer(conn *net.UnixConn, socket string) error {
	uid, err := PeerUID(conn)
	if err != nil {
		return err
	}
	if uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("the server at %s runs as %s, not as you (uid %d): refused as %w, nothing was sent to it; remove the socket, or use -S with a path of yours",
			socket, owner(uid), os.Getuid(), ErrNotYours)
	}
	return nil
}

// owner names uid for a refusal: "uid 65534 (nobody)".
func owner(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return fmt.Sprintf("uid %d", uid)
}
