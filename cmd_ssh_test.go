package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// served is a `sandmux serve` the test started itself and must quit: its
// stderr is the server's log, collected line by line.
type served struct {
	t    *testing.T
	bin  string
	sock string
	env  []string
	cmd  *exec.Cmd

	mu   sync.Mutex
	log  []string
	grew chan struct{} // a line arrived (buffered 1)
	read chan struct{} // closed once stderr reached EOF
}

// startServe runs `BIN serve -S SOCK ARGS...` in env until the test ends,
// and waits until it serves. Its cleanup quits it, killing what it runs,
// and waits for it to exit.
func startServe(t *testing.T, bin, sock string, env []string, args ...string) *served {
	t.Helper()
	s := &served{t: t, bin: bin, sock: sock, env: env, grew: make(chan struct{}, 1), read: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"serve", "-S", sock}, args...)...)
	s.cmd.Env = env
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start sandmux serve: %v", err)
	}
	go s.collect(stderr) // Joined by quit: read closes at EOF.
	t.Cleanup(s.quit)
	s.waitLog("the server to serve", regexp.MustCompile(`serving `+regexp.QuoteMeta(sock)+` \(pid`))
	return s
}

func (s *served) collect(r interface{ Read([]byte) (int, error) }) {
	defer close(s.read)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		s.mu.Lock()
		s.log = append(s.log, sc.Text())
		s.mu.Unlock()
		select {
		case s.grew <- struct{}{}:
		default:
		}
	}
}

func (s *served) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, "\n")
}

// waitLog waits for a log line matching re and returns its submatches.
// The deadline is a bound on a failure, not a timer the test relies on.
func (s *served) waitLog(what string, re *regexp.Regexp) []string {
	s.t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		for _, line := range s.log {
			if m := re.FindStringSubmatch(line); m != nil {
				s.mu.Unlock()
				return m
			}
		}
		s.mu.Unlock()
		select {
		case <-s.grew:
		case <-s.read:
			s.t.Fatalf("the server exited before logging %s; its log:\n%s", what, s.logText())
		case <-deadline.C:
			s.t.Fatalf("timed out waiting for the server to log %s; its log:\n%s", what, s.logText())
		}
	}
}

// ctl runs `sandmux ctl -S SOCK ARGS...` and fails the test if it fails.
func (s *served) ctl(args ...string) string {
	s.t.Helper()
	out, err := s.tryCtl(args...)
	if err != nil {
		s.t.Fatalf("sandmux ctl %v: %v\n%s", args, err, out)
	}
	return out
}

// tryCtl runs `sandmux ctl -S SOCK ARGS...` and returns its output and
// how it failed.
func (s *served) tryCtl(args ...string) (string, error) {
	cmd := exec.Command(s.bin, append([]string{"ctl", "-S", s.sock}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitScreen polls ctl screen of pane until it shows text.
func (s *served) waitScreen(pane, text string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// A pane whose provider is still starting has no screen yet, and
		// says so; on a loaded machine a second pane can be that late.
		scr, err := s.tryCtl("screen", pane)
		if err == nil && strings.Contains(scr, text) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %q on pane %s (%v):\n%s", text, pane, err, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quit ends the server with ctl quit --kill and waits for it; a server
// that does not go is killed, and the test fails.
func (s *served) quit() {
	cmd := exec.Command(s.bin, "ctl", "-S", s.sock, "quit", "--kill")
	cmd.Env = s.env
	_ = cmd.Run() // Best effort: a server already quitting refuses; it goes either way.
	select {
	case <-s.read:
	case <-time.After(30 * time.Second):
		s.t.Errorf("the server at %s did not quit; killing it. Its log:\n%s", s.sock, s.logText())
		_ = s.cmd.Process.Kill() // Best effort: Wait reports how it ended.
		<-s.read
	}
	if s.t.Failed() {
		s.t.Logf("the server's log:\n%s", s.logText())
	}
	_ = s.cmd.Wait() // The status was the quit's; the test checked what it needed.
}

// sshKey generates an ed25519 key pair in dir with ssh-keygen and returns
// the private key's path and the public key's SHA256 fingerprint.
func sshKey(t *testing.T, dir, name string) (key, fingerprint string) {
	t.Helper()
	key = filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", key+".pub").Output()
	if err != nil {
		t.Fatalf("ssh-keygen -l: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || !strings.HasPrefix(f[1], "SHA256:") {
		t.Fatalf("ssh-keygen -l printed %q", out)
	}
	return key, f[1]
}

// sshCommand is the OpenSSH client attaching with key only (no agent, no
// user config), checking the host key against knownHosts when it is set.
func sshCommand(key, port, knownHosts string) string {
	hostCheck := "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
	if knownHosts != "" {
		hostCheck = "-o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + knownHosts
	}
	return fmt.Sprintf("ssh -F /dev/null -tt -i %s -p %s %s -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none -o LogLevel=ERROR 127.0.0.1",
		key, port, hostCheck)
}

// sshRig is one server serving SSH, and the keys of TestSSHAttach.
type sshRig struct {
	srv              *served
	dir, port        string
	knownHosts       string
	rwKey, rwFP      string
	roKey, roFP      string
	strangerKey, sFP string
}

// The issue-12 SSH acceptance, with the real OpenSSH client as the user's
// terminal: the host key is generated private; an unknown key is refused
// and the log names its fingerprint; an authorized key attaches, types
// and detaches with prefix d, the sessions running on; a read-only key
// attaches, sees the pane and READ-ONLY, and its keys, prefix k, x and q
// included, change nothing. Every ssh leaves its terminal as it was.
func TestSSHAttach(t *testing.T) {
	need(t, "tmux", "ssh", "ssh-keygen")
	r := sshRig{dir: t.TempDir()}
	keys := t.TempDir()
	r.rwKey, r.rwFP = sshKey(t, keys, "rw")
	r.roKey, r.roFP = sshKey(t, keys, "ro")
	r.strangerKey, r.sFP = sshKey(t, keys, "stranger")
	cfg := filepath.Join(r.dir, "sandmux.toml")
	writeConfig(t, cfg, fmt.Sprintf(`[server]
ssh_listen = "127.0.0.1:0"
ssh_authorized_keys = %q
ssh_read_only_keys = %q

[[sandbox]]
name = "sh"
command = ["bash", "--norc", "--noprofile"]
`, r.rwKey+".pub", r.roKey+".pub"))
	r.srv = startServe(t, sandmuxBin, serverSocket(r.dir), isolatedEnv(r.dir), "-c", cfg)
	// Port 0: the kernel picks a free port and the log says which, so no
	// other test can take it in between.
	r.port = r.srv.waitLog("its SSH address", regexp.MustCompile(`serving SSH on 127\.0\.0\.1:(\d+)$`))[1]
	r.srv.waitScreen("1", "bash")
	r.knownHosts = checkHostKey(t, r.dir, r.port)

	r.refusesStranger(t)
	r.refusesNoTerminalOrCommand(t)
	r.readWrite(t)
	r.readOnly(t)
	if ls := r.srv.ctl("ls"); !strings.Contains(ls, "running") {
		t.Errorf("after every ssh client left, ctl ls shows no running session:\n%s", ls)
	}
}

// refusesStranger: an unknown key is refused, and the log says which key
// it was.
func (r sshRig) refusesStranger(t *testing.T) {
	tt := startTermIn(t, r.dir, 100, 30, sshCommand(r.strangerKey, r.port, ""))
	if s := tt.waitExit(); !strings.Contains(s, "EXIT=255") || !strings.Contains(s, "Permission denied (publickey)") {
		t.Errorf("ssh with an unknown key was not refused:\n%s", s)
	}
	tt.checkRestored()
	r.srv.waitLog("the refusal", regexp.MustCompile(`ssh: refused ssh \S+ `+regexp.QuoteMeta(r.sFP)+` from 127\.0\.0\.1:\d+: key is in neither`))
}

// refusesNoTerminalOrCommand: attaching takes a terminal and no command;
// both refusals say so.
func (r sshRig) refusesNoTerminalOrCommand(t *testing.T) {
	for _, c := range []struct{ opt, cmd, want string }{
		{"-T", "", "attaching needs a terminal"},
		{"-tt", "ls", "commands are not run over ssh"},
	} {
		argv := strings.Fields(strings.Replace(sshCommand(r.rwKey, r.port, r.knownHosts), " -tt ", " "+c.opt+" ", 1) + " " + c.cmd)
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
			t.Errorf("ssh %s %s: %v, want exit 1 saying %q:\n%s", c.opt, c.cmd, err, c.want, out)
		}
	}
}

// readWrite: an authorized key types, and detaches leaving the sessions
// running. Its client checks the host key against the generated file.
func (r sshRig) readWrite(t *testing.T) {
	tt := startTermIn(t, r.dir, 100, 30, sshCommand(r.rwKey, r.port, r.knownHosts))
	tt.waitText("bash")
	r.srv.waitLog("the attach", regexp.MustCompile(`ssh: attached ssh \S+ `+regexp.QuoteMeta(r.rwFP)+` from .* \(read-write, TERM \S+, 100x30\)`))
	tt.typeText("echo ssh-$((6*7))")
	tt.keys("Enter")
	tt.waitText("ssh-42")
	r.srv.waitScreen("1", "ssh-42")
	tt.keys("C-b", "d")
	if s := tt.waitExit(); !strings.Contains(s, "[detached]") || !strings.Contains(s, "EXIT=0") {
		t.Errorf("prefix d over ssh did not detach cleanly:\n%s", s)
	}
	tt.checkRestored()
	r.srv.waitLog("the detach", regexp.MustCompile(`ssh: detached ssh \S+ `+regexp.QuoteMeta(r.rwFP)))
	if ls := r.srv.ctl("ls"); !strings.Contains(ls, "running") {
		t.Errorf("after the ssh client detached, ctl ls shows no running session:\n%s", ls)
	}
}

// readOnly: a read-only key only watches.
func (r sshRig) readOnly(t *testing.T) {
	tt := startTermIn(t, r.dir, 100, 30, sshCommand(r.roKey, r.port, ""))
	tt.waitText("READ-ONLY")
	tt.waitText("ssh-42")
	r.srv.waitLog("the attach", regexp.MustCompile(`ssh: attached ssh \S+ `+regexp.QuoteMeta(r.roFP)+` from .* \(read-only,`))
	tt.typeText("echo ro-$((3*3))")
	tt.keys("Enter")
	for _, k := range []string{"k", "x", "q"} {
		tt.keys("C-b", k)
	}
	// The help overlay is allowed: once it shows, every key typed before
	// it went through the model, in order, and was dropped.
	tt.keys("C-b", "?")
	tt.waitText("show or hide this help")
	if s := tt.screen(); strings.Contains(s, "Quit and tear them all down?") {
		t.Errorf("prefix q of a read-only client asked to quit:\n%s", s)
	}
	// Input written after the read-only keys were dropped: had they
	// reached bash, their output would come first.
	r.srv.ctl("send", "1", `echo rw-$((2*4))\n`)
	if scr := r.srv.waitScreen("1", "rw-8"); strings.Contains(scr, "ro-9") || strings.Contains(scr, "ro-$") {
		t.Errorf("a read-only client's keys reached the pane:\n%s", scr)
	}
	if ls := r.srv.ctl("ls"); !strings.Contains(ls, "running") {
		t.Errorf("after prefix k, x and q of a read-only client, ctl ls shows no running session:\n%s", ls)
	}
	// Any key leaves the help. Not Escape: with the prefix right behind
	// it in one read, the two would be one alt+ctrl+b.
	tt.keys("Space")
	tt.waitFor("the help to close", func(s string) bool { return !strings.Contains(s, "show or hide this help") })
	tt.keys("C-b", "d")
	if s := tt.waitExit(); !strings.Contains(s, "[detached]") || !strings.Contains(s, "EXIT=0") {
		t.Errorf("prefix d of a read-only client did not detach cleanly:\n%s", s)
	}
	tt.checkRestored()
}

// checkHostKey checks the server generated its host key under
// XDG_STATE_HOME/sandmux, private, and returns a known_hosts file that
// holds only it, so a client can check it is the key the server uses.
func checkHostKey(t *testing.T, dir, port string) (knownHosts string) {
	t.Helper()
	path := filepath.Join(dir, "state", "sandmux", "ssh_host_ed25519_key")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no host key where expected: %v", err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("host key %s has mode %04o, want 0600", path, m)
	}
	if di, err := os.Stat(filepath.Dir(path)); err != nil || di.Mode().Perm()&0o077 != 0 {
		t.Errorf("the host key's directory is open to others: %v %v", di.Mode(), err)
	}
	pub, err := exec.Command("ssh-keygen", "-y", "-f", path).Output()
	if err != nil {
		t.Fatalf("ssh-keygen -y %s: %v", path, err)
	}
	knownHosts = filepath.Join(dir, "known_hosts")
	writeConfig(t, knownHosts, fmt.Sprintf("[127.0.0.1]:%s %s", port, pub))
	return knownHosts
}

func writeConfig(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFileLine polls the file at path (a daemonized server's log) until a
// line matches re, and returns its submatches.
func waitFileLine(t *testing.T, path, what string, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(path) // Not there yet is as good as empty.
		for _, line := range strings.Split(string(data), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s in %s:\n%s", what, path, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A server that sandmux started in the background serves SSH from the
// config, its key files relative to it, and logs to its state file: the
// port, and a refused key's fingerprint. An SSH client and the local one
// share the pane, and a quit from the local client ends the SSH one too,
// with the same summary, its terminal restored.
func TestSSHDaemonized(t *testing.T) {
	need(t, "tmux", "ssh", "ssh-keygen")
	var rwKey, strangerKey, strangerFP string
	// The config is the user's own, $XDG_CONFIG_HOME/sandmux/config.toml.
	local := startTermSetup(t, 100, 30, sandmuxBin, func(dir string) {
		cfgDir := filepath.Join(dir, "config", "sandmux")
		if err := os.MkdirAll(cfgDir, 0o700); err != nil {
			t.Fatal(err)
		}
		rwKey, _ = sshKey(t, cfgDir, "rw")
		strangerKey, strangerFP = sshKey(t, t.TempDir(), "stranger")
		writeConfig(t, filepath.Join(cfgDir, "config.toml"), `[server]
ssh_listen = "127.0.0.1:0"
ssh_authorized_keys = "rw.pub"

[[sandbox]]
name = "sh"
command = ["bash", "--norc", "--noprofile"]
`)
	})
	dir := local.dir
	local.waitStarted()
	logFile := filepath.Join(dir, "state", "sandmux", "default.log")
	port := waitFileLine(t, logFile, "the SSH address", regexp.MustCompile(`serving SSH on 127\.0\.0\.1:(\d+)$`))[1]

	argv := strings.Fields(sshCommand(strangerKey, port, ""))
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 255 {
		t.Errorf("ssh with an unknown key: %v, want exit 255:\n%s", err, out)
	}
	waitFileLine(t, logFile, "the refusal", regexp.MustCompile(`ssh: refused ssh \S+ `+regexp.QuoteMeta(strangerFP)+` from 127\.0\.0\.1:\d+: key is in neither`))

	remote := startTermIn(t, dir, 90, 25, sshCommand(rwKey, port, ""))
	remote.waitStarted()
	remote.typeText("echo remote-$((7*6))")
	remote.keys("Enter")
	local.waitText("remote-42")
	local.keys("C-b", "q")
	local.waitText("Quit and tear them all down?")
	local.keys("y")
	for _, tt := range []*tmuxTerm{local, remote} {
		if s := tt.waitExit(); !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "sh: ") {
			t.Errorf("a client did not end with the summary:\n%s", s)
		}
		tt.checkRestored()
	}
	if _, err := os.Stat(serverSocket(dir)); err == nil {
		t.Errorf("the server's socket outlived the quit")
	}
}
