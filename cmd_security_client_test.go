package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// plantedServerScript is a server another user runs to catch what a victim's
// client sends: it listens at argv[1] (making its directory first, open
// to all, when argv[2] is "mkdir"), and for each connection prints how
// many bytes arrived before the client closed or went quiet for a
// second, until a connection sends "END".
const plantedServerScript = `
import os, socket, sys
path = sys.argv[1]
if sys.argv[2] == "mkdir":
    os.mkdir(os.path.dirname(path))
    os.chmod(os.path.dirname(path), 0o777)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o777)
s.listen(16)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    c.settimeout(1)
    got = b""
    try:
        while True:
            b = c.recv(65536)
            if not b:
                break
            got += b
    except OSError:
        pass
    c.close()
    if got == b"END":
        print("end", flush=True)
        break
    print("conn", len(got), repr(got[:60]), flush=True)
`

// plantedServer is a server run by nobody at sock.
type plantedServer struct {
	t    *testing.T
	sock string
	out  *bufio.Scanner
	cmd  *exec.Cmd
}

// startPlantedServer runs plantedServerScript as nobody (setpriv, as a second
// user on the machine would) and waits until it listens.
func startPlantedServer(t *testing.T, sock string, mkdir bool) *plantedServer {
	t.Helper()
	need(t, "setpriv")
	const python = "/usr/bin/python3" // reachable by nobody, unlike a shim in root's home
	if _, err := os.Stat(python); err != nil {
		need(t, python)
	}
	arg := "-"
	if mkdir {
		arg = "mkdir"
	}
	cmd := exec.CommandContext(t.Context(), "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
		python, "-c", plantedServerScript, sock, arg)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: it normally ended at END.
		_ = cmd.Wait()         // killed or ended: either is fine here
	})
	f := &plantedServer{t: t, sock: sock, out: bufio.NewScanner(stdout), cmd: cmd}
	if !f.out.Scan() || f.out.Text() != "listening" {
		t.Fatalf("the fake server at %s did not start: %q %s", sock, f.out.Text(), errOut.String())
	}
	return f
}

// heard ends the fake server (its connections are served in turn, so
// all the victim's were served first) and returns a line per connection
// it served: "conn N BYTES".
func (f *plantedServer) heard() []string {
	f.t.Helper()
	c, err := net.Dial("unix", f.sock) // raw: the test is no sandmux client
	if err != nil {
		f.t.Fatalf("reach the fake server to end it: %v", err)
	}
	_, _ = io.WriteString(c, "END") // Best effort: a failure shows below.
	_ = c.Close()                   // Best effort: sent.
	var lines []string
	for f.out.Scan() && f.out.Text() != "end" {
		lines = append(lines, f.out.Text())
	}
	return lines
}

// runClient runs the sandmux binary with args in env, on a terminal of
// its own when tty, and returns what it printed and its exit code.
func runClient(t *testing.T, env []string, tty bool, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sandmuxBin, args...)
	cmd.Env = env
	var out bytes.Buffer
	if tty {
		ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(&out, ptmx) // Best effort: EIO is the normal end.
		_ = ptmx.Close()           // Best effort: read to the end.
	} else {
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("sandmux %v: %v\n%s", args, err, out.String())
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// clientPaths are every way a client reaches a server, with the socket
// flags to name it and whether the path needs a terminal.
func clientPaths(sockArgs ...string) []struct {
	args []string
	tty  bool
} {
	with := func(args ...string) []string {
		return append(append(append([]string{}, args[:1]...), sockArgs...), args[1:]...)
	}
	return []struct {
		args []string
		tty  bool
	}{
		{with("ctl", "ls"), false},
		{with("ctl", "send", "1", `secret\r`), false},
		{with("ctl", "run", "--", "echo", "DEPLOY_TOKEN=abc123"), false},
		{with("attach"), true},
		// sandmux itself: starting (or finding) the server, then a CMD
		// opened in it.
		{append(append([]string{}, sockArgs...), "echo DEPLOY_TOKEN=abc123"), true},
	}
}

// Contract A4: with XDG_RUNTIME_DIR on a directory everyone may write (as
// /tmp is), another user makes sandmux's socket directory first, serves a
// fake server in it and plants a symbolic link at the start lock; another
// serves a fake one in a directory of its own. Every client path refuses
// before it sends a byte (the directory's owner, then the server's
// SO_PEERCRED uid, named in the refusal), the link is never followed, and
// `sandmux ls` marks the socket instead of asking it.
func TestContract_A4_ClientRefusesAnotherUsersServer(t *testing.T) {
	needRoot(t)
	base := openDir(t)
	run := filepath.Join(base, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(run, 0o777); err != nil { // the /tmp of the attack
		t.Fatal(err)
	}
	nobodys := filepath.Join(base, "nobody")
	if err := os.Mkdir(nobodys, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(nobodys, nobodyID, nobodyID); err != nil {
		t.Fatal(err)
	}
	env := isolatedEnv(base)
	named := startPlantedServer(t, serverSocket(base), true)
	explicit := startPlantedServer(t, filepath.Join(nobodys, "s.sock"), false)
	victim := filepath.Join(base, "victim")
	plant := exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
		"ln", "-s", victim, named.sock+".lock")
	if out, err := plant.CombinedOutput(); err != nil {
		t.Fatalf("plant the lock link as nobody: %v: %s", err, out)
	}

	for _, c := range append(clientPaths(), clientPaths("-S", explicit.sock)...) {
		out, code := runClient(t, env, c.tty, c.args...)
		t.Logf("sandmux %q: exit %d:\n%s", c.args, code, out)
		if code == exitOK || !strings.Contains(out, "uid 65534 (nobody)") || !strings.Contains(out, "refused as another user's") {
			t.Errorf("sandmux %q: exit %d, want a failure naming uid 65534 (nobody) as the owner:\n%s", c.args, code, out)
		}
	}
	out, code := runClient(t, env, false, "ls")
	t.Logf("sandmux ls:\n%s", out)
	if code != exitOK || !strings.Contains(out, "skipped, another user's") || !strings.Contains(out, "(nobody)") {
		t.Errorf("sandmux ls: exit %d, want the default socket marked as nobody's and skipped:\n%s", code, out)
	}

	if heard := named.heard(); len(heard) != 0 {
		t.Errorf("the fake server in nobody's socket directory was connected to: %q", heard)
	}
	for _, h := range explicit.heard() {
		if !strings.HasPrefix(h, "conn 0 ") {
			t.Errorf("the fake server nobody runs at a -S path heard: %s", h)
		}
	}
	if _, err := os.Lstat(victim); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the start lock's link was followed: %s exists (%v)", victim, err)
	}
}
