package sshattach

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sandmux/sandmux/attach"
	gossh "golang.org/x/crypto/ssh"
)

const sshPath = "/usr/bin/ssh"

// waitBound bounds every wait of these tests: a failure, not a timer the
// tests synchronise on.
const waitBound = 20 * time.Second

// requireSSH skips loudly when the OpenSSH client is missing, and fails
// instead under SANDMUX_REQUIRE_ALL=1.
func requireSSH(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(sshPath); err != nil {
		msg := fmt.Sprintf("SKIPPING SSH ATTACH TEST: %s is missing (install Debian's openssh-client): %v", sshPath, err)
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// clientKey writes an ed25519 private key in OpenSSH format, as ssh reads
// it, and returns its path and public key.
func clientKey(t *testing.T, dir, name string) (string, gossh.PublicKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	writeFile(t, path, string(pem.EncodeToMemory(block)))
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return path, k
}

// logBook collects the server's log lines and says when one arrives.
type logBook struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func newLogBook() *logBook { return &logBook{changed: make(chan struct{}, 1)} }

func (l *logBook) log(msg string) {
	l.mu.Lock()
	l.lines = append(l.lines, msg)
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *logBook) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// waitFor waits until the log holds a line containing every part.
func (l *logBook) waitFor(t *testing.T, parts ...string) string {
	t.Helper()
	timeout := time.After(waitBound)
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if containsAll(line, parts) {
				l.mu.Unlock()
				return line
			}
		}
		l.mu.Unlock()
		select {
		case <-l.changed:
		case <-timeout:
			t.Fatalf("no log line with %q; log:\n%s", parts, l)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// echoAttacher is a stand-in for the server: it answers every byte typed
// with its upper case, 'q' finishes with exit code 3 and a summary, 'd'
// detaches, and its context ending finishes with code 4.
type echoAttacher struct {
	hellos  chan attach.Hello
	resizes chan attach.Size
}

func newEchoAttacher() *echoAttacher {
	return &echoAttacher{hellos: make(chan attach.Hello, 8), resizes: make(chan attach.Size, 8)}
}

func (e *echoAttacher) Attach(ctx context.Context, st attach.Stream) error {
	e.hellos <- st.Hello()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for sz := range st.Resizes() {
			e.resizes <- sz
		}
	})
	quit := context.AfterFunc(ctx, func() {
		_ = st.Finish(attach.Exit{Code: 4, Summary: "server quit"}) // Either this or the reader finishes.
	})
	defer quit()
	buf := make([]byte, 256)
	for {
		n, err := st.Read(buf)
		for _, b := range buf[:n] {
			var end *attach.Exit
			switch b {
			case 'q':
				end = &attach.Exit{Code: 3, Summary: "bye\nsecond line"}
			case 'd':
				end = &attach.Exit{Detached: true}
			}
			if end != nil {
				if quit() {
					_ = st.Finish(*end) // The test reads what it says.
				}
				return nil
			}
			if _, err := st.Write(bytes.ToUpper([]byte{b})); err != nil {
				return nil
			}
		}
		if err != nil {
			return nil
		}
	}
}

// fixture is a running Server with its keys: rw may type, ro may look,
// stranger may not attach.
type fixture struct {
	srv                  *Server
	log                  *logBook
	att                  *echoAttacher
	rw, ro, stranger     string
	rwPub, roPub, strPub gossh.PublicKey
	cancel               context.CancelFunc
	served               chan error
}

func startFixture(t *testing.T, edit func(*Config)) *fixture {
	t.Helper()
	return startFixtureWith(t, edit, nil)
}

// startFixtureWith is startFixture serving a, not the echo attacher, when
// a is set.
func startFixtureWith(t *testing.T, edit func(*Config), a Attacher) *fixture {
	t.Helper()
	requireSSH(t)
	dir := t.TempDir()
	f := &fixture{log: newLogBook(), att: newEchoAttacher(), served: make(chan error, 1)}
	f.rw, f.rwPub = clientKey(t, dir, "rw_key")
	f.ro, f.roPub = clientKey(t, dir, "ro_key")
	f.stranger, f.strPub = clientKey(t, dir, "stranger_key")
	writeFile(t, filepath.Join(dir, "authorized_keys"), authorizedLine(f.rwPub)+" rw\n")
	writeFile(t, filepath.Join(dir, "read_only_keys"), authorizedLine(f.roPub)+" ro\n")
	cfg := Config{
		Listen:         "127.0.0.1:0",
		AuthorizedKeys: filepath.Join(dir, "authorized_keys"),
		ReadOnlyKeys:   filepath.Join(dir, "read_only_keys"),
		HostKeyPath:    filepath.Join(dir, "host", "ssh_host_ed25519_key"),
		Log:            f.log.log,
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	ctx, cancel := context.WithCancel(t.Context())
	f.cancel = cancel
	var serve Attacher = f.att
	if a != nil {
		serve = a
	}
	go func() { f.served <- srv.Serve(ctx, serve) }() // Joined by stop.
	t.Cleanup(func() { f.stop(t) })
	return f
}

// stop ends Serve and waits for it, once.
func (f *fixture) stop(t *testing.T) {
	t.Helper()
	f.cancel()
	if f.served == nil {
		return
	}
	select {
	case err := <-f.served:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(waitBound):
		t.Fatalf("Serve did not return after its context ended")
	}
	f.served = nil
	t.Logf("server log:\n%s", f.log)
}

func (f *fixture) port() int { return f.srv.Addr().(*net.TCPAddr).Port }

func (f *fixture) hello(t *testing.T) attach.Hello {
	t.Helper()
	select {
	case h := <-f.att.hellos:
		return h
	case <-time.After(waitBound):
		t.Fatalf("no attach; log:\n%s", f.log)
	}
	return attach.Hello{}
}

// client is the real OpenSSH client on a real terminal (a PTY).
type client struct {
	tty     *os.File
	mu      sync.Mutex
	out     bytes.Buffer
	changed chan struct{}
	readEnd chan struct{}
	exited  chan struct{}
	code    int
}

// dial runs ssh with key against f's server; flags come before the host
// (-tt for a terminal, -T for none).
func (f *fixture) dial(t *testing.T, key string, flags ...string) *client {
	t.Helper()
	args := append([]string{
		"-F", "/dev/null", "-i", key, "-p", fmt.Sprint(f.port()), "-l", "tester",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "GlobalKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
		"-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "LogLevel=ERROR",
	}, flags...)
	cmd := exec.Command(sshPath, append(args, "127.0.0.1")...)
	cmd.Env = append(os.Environ(), "TERM=screen-256color", "SSH_AUTH_SOCK=")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatalf("start ssh: %v", err)
	}
	c := &client{tty: tty, changed: make(chan struct{}, 1), readEnd: make(chan struct{}), exited: make(chan struct{})}
	go c.read()                           // Joined by the cleanup: readEnd.
	go func() { c.wait(cmd) }()           // Joined by the cleanup: exited.
	t.Cleanup(func() { c.close(t, cmd) }) // Runs before the fixture's stop.
	return c
}

func (c *client) read() {
	defer close(c.readEnd)
	buf := make([]byte, 4096)
	for {
		n, err := c.tty.Read(buf)
		c.mu.Lock()
		c.out.Write(buf[:n])
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
		if err != nil {
			return // EIO once ssh and its terminal are gone.
		}
	}
}

func (c *client) wait(cmd *exec.Cmd) {
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		c.code = ee.ExitCode()
	} else if err != nil {
		c.code = -1
	}
	close(c.exited)
}

func (c *client) close(t *testing.T, cmd *exec.Cmd) {
	select {
	case <-c.exited:
	default:
		_ = cmd.Process.Kill() // Best effort: the test failed before ssh ended.
		<-c.exited
	}
	_ = c.tty.Close() // Best effort: the reader ends either way.
	<-c.readEnd
}

func (c *client) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func (c *client) waitOutput(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(waitBound)
	for !strings.Contains(c.output(), want) {
		select {
		case <-c.changed:
		case <-c.readEnd:
			if !strings.Contains(c.output(), want) {
				t.Fatalf("ssh's terminal ended without %q; it showed %q", want, c.output())
			}
		case <-timeout:
			t.Fatalf("ssh's terminal never showed %q; it showed %q", want, c.output())
		}
	}
}

func (c *client) typeText(t *testing.T, s string) {
	t.Helper()
	if _, err := c.tty.Write([]byte(s)); err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
}

// exitCode waits for ssh to exit and returns its status.
func (c *client) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-c.exited:
		return c.code
	case <-time.After(waitBound):
		t.Fatalf("ssh did not exit; its terminal showed %q", c.output())
	}
	return 0
}
