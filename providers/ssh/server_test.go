package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const sshdPath = "/usr/sbin/sshd"

// server is a private OpenSSH sshd on 127.0.0.1 (TESTING.md), with its own
// host key and one authorized user key, touching no system configuration.
type server struct {
	dir     string
	port    int
	hostPub string // the host key's public line ("ssh-ed25519 AAAA...")
	userKey string // the authorized private key file
	log     *syncBuffer
	config  string // more sshd_config lines
	pgid    int    // sshd's process group: it and its per-connection children
}

// startServer starts sshd, or skips the test loudly when it is missing
// (fails instead under SANDMUX_REQUIRE_ALL=1).
func startServer(t *testing.T, config ...string) *server {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		msg := fmt.Sprintf("SKIPPING SSH TEST: %s is missing (install Debian's openssh-server): %v", sshdPath, err)
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// No agent of the machine's user may take part: tests choose their keys.
	t.Setenv("SSH_AUTH_SOCK", "")
	dir := t.TempDir()
	s := &server{dir: dir, userKey: filepath.Join(dir, "user_key"), log: &syncBuffer{}, config: strings.Join(config, "\n")}
	keygen(t, filepath.Join(dir, "host_key"))
	keygen(t, s.userKey)
	s.hostPub = strings.TrimSpace(readFile(t, filepath.Join(dir, "host_key.pub")))
	copyFile(t, s.userKey+".pub", filepath.Join(dir, "authorized_keys"))
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatalf("create sshd's privilege separation directory: %v", err)
	}
	// Another process may take the free port before sshd binds it: retry.
	for attempt := 0; ; attempt++ {
		err := s.run(t)
		if err == nil {
			break
		}
		if attempt == 4 {
			t.Fatalf("start sshd: %v\n%s", err, s.log.String())
		}
	}
	return s
}

func (s *server) run(t *testing.T) error {
	t.Helper()
	s.port = freePort(t)
	cfg := filepath.Join(s.dir, "sshd_config")
	writeFile(t, cfg, fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %[2]s/host_key
AuthorizedKeysFile %[2]s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin yes
PidFile %[2]s/sshd.pid
AcceptEnv SANDMUX_ACCEPTED
%[3]s
`, s.port, s.dir, s.config))
	cmd := exec.Command(sshdPath, "-f", cfg, "-D", "-e")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	// Its own process group, so cleanup reaches its per-connection children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// sshd offers no readiness signal: poll the port, with a deadline.
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("sshd exited: %v", err)
		default:
		}
		c, err := net.Dial("tcp", s.addr())
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			return errors.New("port never accepted connections")
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: sshd has no readiness event
	}
	s.pgid = cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Best effort: the group may be gone.
		<-exited
		if t.Failed() {
			t.Logf("sshd log:\n%s", s.log.String())
		}
	})
	return nil
}

func (s *server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// knownHosts writes a known_hosts file that lists the host key for addrs.
func (s *server) knownHosts(t *testing.T, addrs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, a := range addrs {
		host, port, _ := net.SplitHostPort(a)
		fmt.Fprintf(&b, "[%s]:%s %s\n", host, port, s.hostPub)
	}
	f := filepath.Join(t.TempDir(), "known_hosts")
	writeFile(t, f, b.String())
	return f
}

// options returns the provider options that reach this server at addr
// (the server itself when empty).
func (s *server) options(t *testing.T, addr string) map[string]any {
	t.Helper()
	if addr == "" {
		addr = s.addr()
	}
	return map[string]any{
		"host":           addr,
		"identity_files": []any{s.userKey},
		"known_hosts":    []any{s.knownHosts(t, addr)},
	}
}

func keygen(t *testing.T, file string) {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen %s: %v\n%s", file, err, out)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func readFile(t *testing.T, f string) string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, f, s string) {
	t.Helper()
	if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) { t.Helper(); writeFile(t, to, readFile(t, from)) }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proxy forwards TCP connections to a target and can cut or stall them:
// the deterministic way to drop a connection under a live handle.
type proxy struct {
	l      net.Listener
	target string
	wg     sync.WaitGroup

	mu      sync.Mutex
	conns   []net.Conn
	stalled bool
	stall   chan struct{} // closed to resume stalled copies
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target, stall: make(chan struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		_ = l.Close()
		p.cut()
		p.mu.Lock()
		if p.stalled {
			close(p.stall)
			p.stalled = false
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) addr() string { return p.l.Addr().String() }

func (p *proxy) accept() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(u, c) })
		p.wg.Go(func() { p.pipe(c, u) })
	}
}

// pipe copies src to dst in small steps, pausing while the proxy stalls.
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		stall := p.stall
		stalled := p.stalled
		p.mu.Unlock()
		if stalled {
			<-stall // Bytes held back, as by a dead link.
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = dst.Close()
			return
		}
	}
}

// cut closes every proxied connection, both sides.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// stop makes the proxy hold back every byte from now on, without closing
// anything: a link that went silent.
func (p *proxy) stopForwarding() {
	p.mu.Lock()
	p.stalled = true
	p.mu.Unlock()
}

var _ = io.EOF
var _ = context.Background
