// Package endpoint owns where a sandmux server is found and who may reach
// it: the socket path for a server name (-L) or an explicit one (-S), the
// private directory it lives in, listening (replacing a stale socket left
// by a server that died), dialing, and trust both ways: a server refuses
// a client of another user, and a client refuses, before it sends
// anything, a socket directory or a server of another user's (SO_PEERCRED,
// contracts A1 and A4). It does not own what is said over the socket:
// that is package control.
package endpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultName is the server name when -L is not given.
const DefaultName = "default"

// EnvSocket names the environment variable every pane's processes get,
// holding their server's socket, so a program in a pane can reach it.
const EnvSocket = "SANDMUX_SOCKET"

// ErrNoServer means no server answers at the socket: none was started, or
// it exited.
var ErrNoServer = errors.New("no sandmux server is running")

// Path is the socket for a server: explicit when set (-S), else the socket
// of server name (-L, DefaultName when empty) in Dir.
func Path(name, explicit string) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	if name == "" {
		name = DefaultName
	}
	if err := CheckName(name); err != nil {
		return "", err
	}
	return filepath.Join(Dir(), name+".sock"), nil
}

// CheckName accepts a server name that makes one file name in Dir.
func CheckName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || len(name) > 64 {
		return fmt.Errorf("server name %q: use up to 64 characters, no slash", name)
	}
	return nil
}

// Dir is the directory of the named servers' sockets, named for this
// user wherever it is, so that it is never another user's too (A4):
// sandmux-UID in $XDG_RUNTIME_DIR (when that is an absolute path), else
// in the temporary directory ($TMPDIR, else /tmp). With XDG_RUNTIME_DIR
// set to /tmp, say, it is still this user's own; a directory of that name
// that another user made first is refused (CheckDir), not used.
func Dir() string {
	base := os.TempDir()
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		base = d
	}
	return filepath.Join(base, fmt.Sprintf("sandmux-%d", os.Getuid()))
}

// inDir reports whether socket is a named server's, in Dir.
func inDir(socket string) bool { return filepath.Dir(socket) == Dir() }

// Servers lists the names of the sockets in Dir, whether or not a server
// still answers at each (Dial tells).
func Servers() ([]string, error) {
	entries, err := os.ReadDir(Dir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list servers in %s: %w", Dir(), err)
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".sock"); ok && e.Type()&os.ModeSocket != 0 {
			names = append(names, name)
		}
	}
	return names, nil
}
