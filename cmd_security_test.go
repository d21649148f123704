package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// nobodyID is the uid and gid of user nobody, the other user of these tests.
const nobodyID = 65534

// needRoot skips the test loudly unless it runs as root, which running a
// process as another user takes, and fails it instead under
// SANDMUX_REQUIRE_ALL=1 (CI runs as root).
func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		msg := "SKIPPED: running a client as user nobody needs root (CI runs as root)"
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// openDir is a new directory everyone may enter, removed when the test
// ends: t.TempDir's parents are private, so nobody could not reach a
// socket under them at all.
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sandmux-security-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) }) // Best effort: a temp dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// publicBin is sandmuxBin where nobody may run it: the test binary's own
// directory is private.
func publicBin(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "sandmux")
	if err := os.Link(sandmuxBin, bin); err == nil {
		return bin
	}
	data, err := os.ReadFile(sandmuxBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func asNobody() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
}

// ctlAsNobody runs `sandmux ctl -S sock ls` as nobody, which must fail;
// it returns what it printed.
func ctlAsNobody(t *testing.T, bin, sock string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "ctl", "-S", sock, "ls")
	cmd.Env = nobodyEnv()
	cmd.SysProcAttr = asNobody()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailure {
		t.Errorf("ctl ls as nobody at %s: %v (want exit %d)\n%s", sock, err, exitFailure, out)
	}
	return string(out)
}

// attachAsNobody runs `sandmux attach -S sock` as nobody on a terminal of
// its own (attach refuses to run without one), which must fail; it
// returns what the terminal showed.
func attachAsNobody(t *testing.T, bin, sock string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "attach", "-S", sock)
	cmd.Env = nobodyEnv()
	attrs := asNobody()
	attrs.Setsid, attrs.Setctty = true, true
	ptmx, err := pty.StartWithAttrs(cmd, &pty.Winsize{Cols: 80, Rows: 24}, attrs)
	if err != nil {
		t.Fatalf("attach as nobody: %v", err)
	}
	defer ptmx.Close() //nolint:errcheck // Best effort: read to the end already.
	var out bytes.Buffer
	// Reading ends with EIO once the client exited and closed its end.
	_, _ = io.Copy(&out, ptmx) // Best effort: EIO is the normal end.
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailure {
		t.Errorf("attach as nobody at %s: %v (want exit %d)\n%s", sock, err, exitFailure, out.String())
	}
	return out.String()
}

// nobodyEnv is an environment of nobody's own: no XDG paths of the test's,
// a home it cannot write.
func nobodyEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "TERM=xterm-256color"}
}

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		t.Errorf("%s is not owned by uid %d", path, os.Getuid())
	}
	return fi.Mode()
}

// Contract A1 on a real server: its socket directory is 0700 and its
// socket 0600, so another user cannot even connect (the directory refuses
// a named server's socket, the socket's mode a -S one); and where a -S
// socket was opened to everyone, the server refuses the other uid by
// SO_PEERCRED, naming both uids, to ctl and attach alike. The server is
// unharmed throughout.
func TestSecurityOtherUserRefused(t *testing.T) {
	needRoot(t)
	base := openDir(t)
	bin := publicBin(t, base)
	// The runtime dir is enterable, as sandmux's own directory in it must
	// not be: that directory is what refuses.
	if err := os.Mkdir(filepath.Join(base, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	env := isolatedEnv(base)
	named := startServe(t, bin, serverSocket(base), env, "cat")
	explicit := startServe(t, bin, filepath.Join(open, "s.sock"), env, "cat")

	if m := modeOf(t, filepath.Dir(named.sock)); !m.IsDir() || m.Perm() != 0o700 {
		t.Errorf("socket directory %s has mode %v, want drwx------", filepath.Dir(named.sock), m)
	}
	for _, sock := range []string{named.sock, explicit.sock} {
		if m := modeOf(t, sock); m&os.ModeSocket == 0 || m.Perm() != 0o600 {
			t.Errorf("socket %s has mode %v, want Srw-------", sock, m)
		}
	}

	// The private directory, then the socket's own mode, refuse nobody
	// before the server hears of it.
	for _, sock := range []string{named.sock, explicit.sock} {
		for what, out := range map[string]string{"ctl ls": ctlAsNobody(t, bin, sock), "attach": attachAsNobody(t, bin, sock)} {
			t.Logf("%s as nobody at %s:\n%s", what, sock, out)
			if !strings.Contains(out, "permission denied") || !strings.Contains(out, sock) {
				t.Errorf("%s as nobody at %s: want permission denied naming the socket, got:\n%s", what, sock, out)
			}
		}
	}

	// A careless user opens the socket to everyone: the kernel lets
	// nobody connect, and the server refuses it by its credentials.
	if err := os.Chmod(explicit.sock, 0o666); err != nil {
		t.Fatal(err)
	}
	const refusal = "refused a client of uid 65534: only uid 0 may use this server"
	out := ctlAsNobody(t, bin, explicit.sock)
	t.Logf("ctl ls as nobody at a socket open to all:\n%s", out)
	if !strings.Contains(out, refusal) {
		t.Errorf("ctl ls as nobody at a socket open to all: want %q, got:\n%s", refusal, out)
	}
	out = attachAsNobody(t, bin, explicit.sock)
	t.Logf("attach as nobody at a socket open to all:\n%s", out)
	if !strings.Contains(out, "the server refused: "+refusal) {
		t.Errorf("attach as nobody at a socket open to all: want %q, got:\n%s", refusal, out)
	}
	explicit.waitLog("the refusal", regexp.MustCompile(`refused a connection: `+regexp.QuoteMeta(refusal)))

	for _, srv := range []*served{named, explicit} {
		if ls := srv.ctl("ls"); !strings.Contains(ls, "running") {
			t.Errorf("after nobody was refused, ctl ls at %s shows no running session:\n%s", srv.sock, ls)
		}
	}
}
