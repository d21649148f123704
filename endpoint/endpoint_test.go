package endpoint

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperDial())
	}
	goleak.VerifyTestMain(m)
}

func TestContract_A4_PathPerUser(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	own := fmt.Sprintf("/run/user/7/sandmux-%d/", os.Getuid())
	cases := []struct{ name, explicit, want string }{
		{"", "", own + "default.sock"},
		{"work", "", own + "work.sock"},
		{"work", "/x/y.sock", "/x/y.sock"},
	}
	for _, c := range cases {
		if got, err := Path(c.name, c.explicit); err != nil || got != c.want {
			t.Errorf("Path(%q, %q) = %q, %v; want %q", c.name, c.explicit, got, err, c.want)
		}
	}
	for _, bad := range []string{"a/b", "..", ".", strings.Repeat("x", 65), "a\x00"} {
		if _, err := Path(bad, ""); err == nil {
			t.Errorf("Path(%q) accepted", bad)
		}
	}
	// A runtime directory shared by every user still gets one of this
	// user's (A4).
	t.Setenv("XDG_RUNTIME_DIR", "/tmp")
	if got, _ := Path("", ""); got != fmt.Sprintf("/tmp/sandmux-%d/default.sock", os.Getuid()) {
		t.Errorf("with XDG_RUNTIME_DIR=/tmp: %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got, _ := Path("", ""); got != filepath.Join(os.TempDir(), fmt.Sprintf("sandmux-%d", os.Getuid()), "default.sock") {
		t.Errorf("without XDG_RUNTIME_DIR: %q", got)
	}
}

// listen listens on a socket in a fresh private runtime directory.
func listen(t *testing.T) (string, *net.UnixListener) {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path, err := Path("t", "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return path, l
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestListenModes(t *testing.T) {
	path, _ := listen(t)
	if m := mode(t, filepath.Dir(path)); m != 0o700 {
		t.Errorf("directory mode %v, want 0700", m)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("socket mode %v, want 0600", m)
	}
	if names, err := Servers(); err != nil || len(names) != 1 || names[0] != "t" {
		t.Errorf("Servers() = %v, %v; want [t]", names, err)
	}
}

func TestListenRefusesOpenDirectory(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if err := os.Mkdir(Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	path, _ := Path("x", "")
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("Listen in a 0755 directory: %v, want a refusal saying chmod 700", err)
	}
	// An explicit path's directory is the user's choice.
	explicit := filepath.Join(t.TempDir(), "s.sock")
	l, err := Listen(explicit)
	if err != nil {
		t.Fatalf("Listen on an explicit path: %v", err)
	}
	defer l.Close()
	if m := mode(t, explicit); m != 0o600 {
		t.Errorf("explicit socket mode %v, want 0600", m)
	}
}

// One server per name; a socket left by a dead server is replaced.
func TestListenStaleAndLive(t *testing.T) {
	path, l := listen(t)
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "already runs") {
		t.Errorf("second Listen on a live socket: %v, want a refusal", err)
	}
	// A server that died leaves its socket file behind.
	l.SetUnlinkOnClose(false)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(path); !errors.Is(err, ErrNoServer) {
		t.Errorf("Dial of a stale socket: %v, want ErrNoServer", err)
	}
	l2, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
}

func TestDialNoServer(t *testing.T) {
	if _, err := Dial(filepath.Join(t.TempDir(), "none.sock")); !errors.Is(err, ErrNoServer) {
		t.Errorf("Dial of a missing socket: %v, want ErrNoServer", err)
	}
}

func TestCheckPeerSameUser(t *testing.T) {
	path, l := listen(t)
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := CheckPeer(s); err != nil {
		t.Errorf("CheckPeer of our own client: %v", err)
	}
}

const (
	helperEnv = "SANDMUX_ENDPOINT_TEST_DIAL"
	nobody    = 65534
)

// helperDial is the test binary re-run as another user: it dials the
// socket and prints what the server said, or the error.
func helperDial() int {
	c, err := Dial(os.Getenv(helperEnv))
	if err != nil {
		fmt.Println("dial:", err)
		return 0
	}
	defer c.Close()
	b, _ := io.ReadAll(c)
	fmt.Printf("read: %q\n", b)
	return 0
}

// asNobody runs the test binary as uid nobody, dialing path.
func asNobody(t *testing.T, path string) string {
	t.Helper()
	if os.Getuid() != 0 {
		msg := "SKIPPED: running a client as another user needs root"
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// The binary must be reachable by nobody: copy it into a directory
	// everyone may enter.
	dir, err := os.MkdirTemp("", "sandmux-endpoint-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "client")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("client as nobody: %v: %s", err, out)
	}
	return string(out)
}

// Another user cannot reach the socket in its private directory at all.
func TestOtherUserCannotReachSocket(t *testing.T) {
	path, _ := listen(t)
	if err := os.Chmod(filepath.Dir(filepath.Dir(path)), 0o755); err != nil {
		t.Fatal(err) // the test's own temp dir, so only sandmux's is private
	}
	out := asNobody(t, path)
	if !strings.Contains(out, "permission denied") {
		t.Errorf("client as nobody: %q, want permission denied", out)
	}
}

// Even with the socket open to everyone (a careless -S), the server refuses
// a peer of another uid by its credentials.
func TestContract_A1_OtherUserRefusedByCredentials(t *testing.T) {
	dir, err := os.MkdirTemp("", "sandmux-open-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, p := range []string{dir, path} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	refused := make(chan error, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			refused <- err
			return
		}
		defer c.Close()
		err = CheckPeer(c)
		if err != nil {
			_, _ = io.WriteString(c, err.Error())
		}
		refused <- err
	}()
	out := asNobody(t, path)
	err = <-refused
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("uid %d", nobody)) {
		t.Errorf("CheckPeer of nobody: %v, want a refusal naming uid %d", err, nobody)
	}
	if !strings.Contains(out, "refused a client of uid") {
		t.Errorf("client as nobody read %q, want the refusal", out)
	}
}
