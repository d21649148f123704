package sshattach

import (
	"context"
	"net"
	"os"
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

func TestMaxConns(t *testing.T) {
	f := startFixture(t, func(c *Config) { c.MaxConns = 1 })
	served(t, f.srv)
	second, err := net.Dial("tcp", f.srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := second.Read(make([]byte, 64)); err == nil {
		t.Errorf("a connection beyond MaxConns was served")
	}
	f.log.waitFor(t, "refused ssh connection", "already serving 1")
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
