package sshattach

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sandmux/sandmux/attach"
	gossh "golang.org/x/crypto/ssh"
)

func TestAuthorizedKeyAttachesTypesAndExits(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.rw, "-tt")
	h := f.hello(t)
	if h.ReadOnly || h.Term != "screen-256color" || h.Size != (attach.Size{Width: 80, Height: 24}) {
		t.Errorf("Hello = %+v, want read-write, TERM screen-256color, 80x24", h)
	}
	fp := gossh.FingerprintSHA256(f.rwPub)
	if want := "ssh tester " + fp + " from 127.0.0.1:"; !strings.HasPrefix(h.Who, want) {
		t.Errorf("Who = %q, want it to start with %q", h.Who, want)
	}
	c.typeText(t, "hello")
	c.waitOutput(t, "HELLO")
	c.typeText(t, "q")
	if code := c.exitCode(t); code != 3 {
		t.Errorf("ssh exited %d, want the attach's 3; terminal: %q", code, c.output())
	}
	c.waitOutput(t, "bye\r\nsecond line\r\n")
	f.log.waitFor(t, "attached ssh", fp, "read-write")
	f.log.waitFor(t, "ended ssh", fp, "exit 3")
}

func TestResizeReachesResizes(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.rw, "-tt")
	f.hello(t)
	if err := pty.Setsize(c.tty, &pty.Winsize{Rows: 40, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	select {
	case sz := <-f.att.resizes:
		if sz != (attach.Size{Width: 132, Height: 40}) {
			t.Errorf("resize = %+v, want 132x40", sz)
		}
	case <-time.After(waitBound):
		t.Fatal("the client's resize never reached Resizes")
	}
	c.typeText(t, "d")
	if code := c.exitCode(t); code != 0 {
		t.Errorf("ssh exited %d after a detach, want 0", code)
	}
	c.waitOutput(t, "[detached]\r\n")
}

func TestReadOnlyKeyAttachesReadOnly(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.ro, "-tt")
	if h := f.hello(t); !h.ReadOnly {
		t.Errorf("Hello.ReadOnly = false for a key in the read-only keys")
	}
	f.log.waitFor(t, "attached ssh", gossh.FingerprintSHA256(f.roPub), "read-only")
	c.typeText(t, "q")
	c.exitCode(t)
}

func TestUnknownKeyRefused(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.stranger, "-tt")
	if code := c.exitCode(t); code != 255 {
		t.Errorf("ssh exited %d for an unknown key, want 255; terminal: %q", code, c.output())
	}
	// Public keys are the only way in: no password, no keyboard-interactive.
	c.waitOutput(t, "Permission denied (publickey).")
	f.log.waitFor(t, "refused ssh", "tester", gossh.FingerprintSHA256(f.strPub), "neither")
	select {
	case h := <-f.att.hellos:
		t.Errorf("an unknown key attached: %+v", h)
	default:
	}
}

func TestNoTerminalRefused(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.rw, "-T")
	if code := c.exitCode(t); code != 1 {
		t.Errorf("ssh -T exited %d, want 1", code)
	}
	c.waitOutput(t, "attaching needs a terminal: run ssh -tt")
	f.log.waitFor(t, "refused ssh", "no terminal")
}

func TestCommandRefused(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.rw, "-tt", "-o", "RemoteCommand=ls")
	if code := c.exitCode(t); code != 1 {
		t.Errorf("ssh with a command exited %d, want 1", code)
	}
	c.waitOutput(t, "commands are not run over ssh")
}

func TestShutdownEndsLiveSessions(t *testing.T) {
	f := startFixture(t, nil)
	c := f.dial(t, f.rw, "-tt")
	f.hello(t)
	c.typeText(t, "x")
	c.waitOutput(t, "X")
	f.stop(t)
	if code := c.exitCode(t); code != 4 {
		t.Errorf("ssh exited %d when the server shut down, want the attach's 4", code)
	}
	c.waitOutput(t, "server quit\r\n")
}

func TestShutdownClosesAStalledHandshake(t *testing.T) {
	f := startFixture(t, func(c *Config) { c.ShutdownGrace = time.Millisecond })
	served(t, f.srv)
	f.stop(t)
}

// served dials s and reads its version line: the connection is served.
func served(t *testing.T, s *Server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := conn.Read(make([]byte, 64)); err != nil {
		t.Fatalf("no version line from the server: %v", err)
	}
	return conn
}

// MaxConns bounds the connections a key authenticated: one more is
// refused, and the log says why.
func TestMaxConns(t *testing.T) {
	f := startFixture(t, func(c *Config) { c.MaxConns = 1 })
	f.dial(t, f.rw, "-tt")
	f.hello(t)
	second := f.dial(t, f.rw, "-tt")
	if code := second.exitCode(t); code != 255 {
		t.Errorf("a connection beyond MaxConns: ssh exited %d, want 255 (refused)", code)
	}
	f.log.waitFor(t, "refused ssh", "already serving 1 connections")
}

// The attack of issue 20: strangers that open connections and never
// finish their handshake do not keep out a user with a key; the oldest
// handshake is closed to make room.
func TestContract_A14_HandshakesDoNotKeepUsersOut(t *testing.T) {
	f := startFixture(t, func(c *Config) { c.MaxConns, c.MaxHandshakes = 2, 2 })
	var stalled []net.Conn
	for range 3 {
		stalled = append(stalled, served(t, f.srv))
	}
	c := f.dial(t, f.rw, "-tt")
	f.hello(t)
	c.typeText(t, "x")
	c.waitOutput(t, "X")
	// The first stalled connection was closed to make room.
	if err := stalled[0].SetReadDeadline(time.Now().Add(waitBound)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(stalled[0]); err != nil {
		t.Errorf("the oldest stalled handshake was not closed: %v", err)
	}
	f.log.waitFor(t, "closed the handshake of", "2 handshakes in progress")
}

// A stranger's refused keys are logged at a bounded rate: the lines past
// the burst are counted, not written.
func TestContract_A14_RefusalsLoggedAtABoundedRate(t *testing.T) {
	var l logLimiter
	now := time.Now()
	passed := 0
	for range 1000 {
		if ok, _ := l.allow(now); ok {
			passed++
		}
	}
	if passed != logBurst {
		t.Errorf("%d of 1000 lines at once passed, want the burst of %d", passed, logBurst)
	}
	ok, held := l.allow(now.Add(logEvery))
	if !ok || held != 1000-logBurst {
		t.Errorf("after logEvery: allowed %v, held back %d; want true, %d", ok, held, 1000-logBurst)
	}
	f := startFixture(t, nil)
	for range 3 {
		c := f.dial(t, f.stranger, "-tt")
		if code := c.exitCode(t); code != 255 {
			t.Fatalf("a stranger's key: ssh exited %d, want 255", code)
		}
	}
	f.log.waitFor(t, "refused ssh", "key is in neither")
}

// The env requests a session makes before its shell are bounded: past
// maxEnv, ssh is told no, and the session still attaches.
func TestContract_A14_EnvRequestsBounded(t *testing.T) {
	f := startFixture(t, nil)
	flags := []string{"-tt"}
	for i := range maxEnv + 20 {
		flags = append(flags, "-o", fmt.Sprintf("SetEnv=SANDMUX_TEST_%d=%s", i, strings.Repeat("v", 100)))
	}
	c := f.dial(t, f.rw, flags...)
	f.hello(t)
	c.typeText(t, "x")
	c.waitOutput(t, "X")
	// The session handler saw at most maxEnv of them: filterRequests
	// refused the rest. (filterRequests itself is checked below.)
	reqs, out := make(chan *gossh.Request), make(chan *gossh.Request)
	go filterRequests(reqs, out) // Ends once reqs closes and out drained.
	go func() {
		defer close(reqs)
		for range maxEnv + 5 {
			reqs <- &gossh.Request{Type: "env", Payload: []byte("x")}
		}
		reqs <- &gossh.Request{Type: "env", Payload: make([]byte, maxEnvBytes+1)}
		reqs <- &gossh.Request{Type: "shell"}
	}()
	var types []string
	for r := range out {
		types = append(types, r.Type)
	}
	if len(types) != maxEnv+1 || types[maxEnv] != "shell" {
		t.Errorf("%d requests passed (last %q), want %d env and the shell", len(types), types[len(types)-1], maxEnv)
	}
}

// Key files someone else could write are refused, as sshd's StrictModes
// refuses them.
func TestContract_A15_KeyFilesOthersCanWriteRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "authorized_keys")
	writeFile(t, path, "")
	if _, err := readKeys(path); err != nil {
		t.Fatalf("a private keys file: %v", err)
	}
	for _, c := range []struct {
		what       string
		file, dirm os.FileMode
		want       string
	}{
		{"group-writable file", 0o620, 0o700, "writable by others (mode 0620)"},
		{"world-writable file", 0o606, 0o700, "writable by others (mode 0606)"},
		{"world-writable directory", 0o600, 0o777, "the directory"},
	} {
		if err := os.Chmod(path, c.file); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, c.dirm); err != nil {
			t.Fatal(err)
		}
		_, err := readKeys(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "chmod go-w") {
			t.Errorf("%s: %v, want a refusal saying %q and what to do", c.what, err, c.want)
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		// Owned by another user: nobody's files are not root's.
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Skipf("chown to nobody: %v", err)
		}
		if _, err := readKeys(path); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Errorf("a keys file of another user: %v, want a refusal naming its owner", err)
		}
	}
}

func TestHandshakeTimeout(t *testing.T) {
	f := startFixture(t, func(c *Config) { c.HandshakeTimeout = 100 * time.Millisecond })
	conn := served(t, f.srv)
	// It never sends its version: the handshake timeout closes it.
	if err := conn.SetReadDeadline(time.Now().Add(waitBound)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	for {
		_, err := conn.Read(buf)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("the handshake timeout did not close a silent connection")
		}
		if err != nil {
			break
		}
	}
	f.log.waitFor(t, "ended before attaching", "i/o timeout")
}

func TestHostKeyKeptAcrossServers(t *testing.T) {
	requireSSH(t)
	dir := t.TempDir()
	_, pub := clientKey(t, dir, "k")
	keys := dir + "/authorized_keys"
	writeFile(t, keys, authorizedLine(pub)+"\n")
	cfg := Config{Listen: "127.0.0.1:0", AuthorizedKeys: keys, HostKeyPath: dir + "/state/host_key"}
	var fps []string
	for range 2 {
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fps = append(fps, servedHostKey(t, s))
	}
	if fps[0] != fps[1] {
		t.Errorf("the host key changed between servers: %v", fps)
	}
	if info, err := os.Stat(cfg.HostKeyPath); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("host key: %v, %v; want mode 0600", info, err)
	}
}

// servedHostKey serves s just long enough to read the host key a client
// is shown, then shuts it down.
func servedHostKey(t *testing.T, s *Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, newEchoAttacher()) }() // Joined below.
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve = %v", err)
		}
	}()
	var fp string
	_, err := gossh.Dial("tcp", s.Addr().String(), &gossh.ClientConfig{
		User: "probe",
		HostKeyCallback: func(_ string, _ net.Addr, key gossh.PublicKey) error {
			fp = gossh.FingerprintSHA256(key)
			return nil
		},
	})
	if err == nil || fp == "" {
		t.Fatalf("a client without a key: err %v, host key %q; want refused after seeing the host key", err, fp)
	}
	return fp
}

func TestIdleClientKeptByKeepAlives(t *testing.T) {
	f := startFixture(t, func(c *Config) { c.KeepAlive, c.IdleTimeout = 50*time.Millisecond, 500*time.Millisecond })
	c := f.dial(t, f.rw, "-tt")
	f.hello(t)
	// Idle for several idle timeouts: only the keep-alives' answers are
	// read from the client meanwhile.
	<-time.After(1500 * time.Millisecond)
	c.typeText(t, "still")
	c.waitOutput(t, "STILL")
	c.typeText(t, "q")
	if code := c.exitCode(t); code != 3 {
		t.Errorf("ssh exited %d, want 3", code)
	}
}

func TestConcurrentSessions(t *testing.T) {
	f := startFixture(t, nil)
	a, b := f.dial(t, f.rw, "-tt"), f.dial(t, f.ro, "-tt")
	f.hello(t)
	f.hello(t)
	a.typeText(t, "aaa")
	b.typeText(t, "bbb")
	a.waitOutput(t, "AAA")
	b.waitOutput(t, "BBB")
	if strings.Contains(a.output(), "BBB") || strings.Contains(b.output(), "AAA") {
		t.Errorf("sessions crossed: a %q, b %q", a.output(), b.output())
	}
	a.typeText(t, "q")
	b.typeText(t, "d")
	if ca, cb := a.exitCode(t), b.exitCode(t); ca != 3 || cb != 0 {
		t.Errorf("exit codes %d, %d; want 3, 0", ca, cb)
	}
}

func TestRemoteTextEscapedInLog(t *testing.T) {
	f := startFixture(t, nil)
	signer, err := gossh.NewSignerFromKey(mustEd25519(t))
	if err != nil {
		t.Fatal(err)
	}
	hostile := "eve\x1b]0;pwned\x07\u202e"
	_, err = gossh.Dial("tcp", f.srv.Addr().String(), &gossh.ClientConfig{
		User:            hostile,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err == nil {
		t.Fatal("an unknown key was let in")
	}
	line := f.log.waitFor(t, "refused ssh", gossh.FingerprintSHA256(signer.PublicKey()))
	if strings.ContainsAny(line, "\x1b\x07\u202e") || !strings.Contains(line, `eve\x1b]0;pwned\x07\u202e`) {
		t.Errorf("log line %q: want the user name escaped", line)
	}
}
