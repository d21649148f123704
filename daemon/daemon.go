// Package daemon owns starting a sandmux server in the background: the
// first client re-executes sandmux as a server in a session of its own
// (no controlling terminal, so the client's SIGHUP never reaches it), with
// stdin on /dev/null and stdout and stderr appended to a log under the
// state directory, waits until its socket answers, and then leaves it
// running. It also lists the servers whose sockets are in endpoint.Dir,
// for `sandmux ls`.
//
// It does not own what a server does or says (packages server and
// control), where a socket lives (package endpoint), or which arguments a
// server is started with (package main passes them through Options.Args).
//
//	client ──Start──▶ lock NAME.sock.lock ─▶ exec sandmux serve … (setsid)
//	   │                                         │ stdout, stderr
//	   │ poll: endpoint.Dial, child exited?      ▼
//	   └──────────────────────────────── $XDG_STATE_HOME/sandmux/NAME.log
package daemon

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/xdg"
)

// StateDir is sandmux's state directory, where the servers' logs live:
// $XDG_STATE_HOME/sandmux, else ~/.local/state/sandmux as the XDG spec says
// (a relative XDG_STATE_HOME is ignored, as the spec says too).
func StateDir() (string, error) {
	state, err := xdg.State()
	if err != nil {
		return "", fmt.Errorf("find the state directory for the server's log: %w", err)
	}
	return state, nil
}

// LogPath is the log of server name: StateDir/NAME.log.
func LogPath(name string) (string, error) {
	if err := endpoint.CheckName(name); err != nil {
		return "", err
	}
	dir, err := StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".log"), nil
}

// LogName is the name a server's log is called by when only its socket is
// known (an explicit -S path): the socket's base name without ".sock", or
// "socket" when that is not a usable name.
func LogName(socket string) string {
	name := strings.TrimSuffix(filepath.Base(socket), ".sock")
	if endpoint.CheckName(name) != nil {
		return "socket"
	}
	return name
}

// answers reports whether a server answers at socket. An error other than
// "nobody listens" (a permission problem, a socket that hangs) is returned:
// starting another server would not help.
func answers(socket string) (bool, error) {
	c, err := endpoint.Dial(socket)
	if errors.Is(err, endpoint.ErrNoServer) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check for a running server: %w", err)
	}
	_ = c.Close() // Best effort: it was only a probe.
	return true, nil
}
