package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// ctlServer is a real `sandmux serve` that a test started in the
// background and quits at its end: the server ctl talks to in these
// tests, with nothing faked between them.
type ctlServer struct {
	t      *testing.T
	dir    string // isolatedEnv's root
	sock   string
	env    []string
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process was waited for

	mu  sync.Mutex
	log bytes.Buffer // the server's stderr
	out bytes.Buffer // its stdout: the exit summary
}

// startCtlServer runs `sandmux serve -S SOCK [-c cfg] -- cmds...` and
// returns once it serves. cfg "" uses no config file. The binary's
// directory leads PATH, so a pane can run `sandmux` by name.
func startCtlServer(t *testing.T, cfg string, cmds ...string) *ctlServer {
	t.Helper()
	dir := t.TempDir()
	s := &ctlServer{t: t, dir: dir, sock: filepath.Join(dir, "s.sock"), exited: make(chan struct{})}
	s.env = append(isolatedEnv(dir), "PATH="+filepath.Dir(sandmuxBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if os.Getenv("GORACE") == "" {
		// The race runtime sleeps a second at every exit by default: a
		// second per ctl call, which these tests make by the hundred.
		s.env = append(s.env, "GORACE=atexit_sleep_ms=0")
	}
	args := []string{"serve", "-S", s.sock}
	if cfg != "" {
		path := filepath.Join(dir, "sandmux.toml")
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-c", path)
	}
	s.cmd = exec.Command(sandmuxBin, append(append(args, "--"), cmds...)...)
	s.cmd.Env, s.cmd.Dir = s.env, dir
	s.cmd.Stdout = lockedWriter{&s.mu, &s.out}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serving := make(chan struct{})
	logDone := make(chan struct{})
	go func() { // owned: Wait below runs only after it ends
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if strings.Contains(sc.Text(), "serving "+s.sock) {
				once.Do(func() { close(serving) })
			}
		}
	}()
	go func() {
		<-logDone
		_ = s.cmd.Wait() // the exit status is read from ProcessState
		close(s.exited)
	}()
	t.Cleanup(s.stop)
	select {
	case <-serving:
	case <-s.exited:
		t.Fatalf("sandmux serve exited before serving: %s\n%s", s.cmd.ProcessState, s.logText())
	case <-time.After(30 * time.Second):
		t.Fatalf("sandmux serve did not say it serves %s:\n%s", s.sock, s.logText())
	}
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (s *ctlServer) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

func (s *ctlServer) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// stop quits the server with ctl quit --kill, unless it is gone already,
// and waits until the process exited: no test leaves a server behind.
func (s *ctlServer) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	cmd := exec.Command(sandmuxBin, "ctl", "-S", s.sock, "quit", "--kill")
	cmd.Env = s.env
	_ = cmd.Run() // Best effort: a server already quitting refuses; waiting tells.
	s.waitExit()
}

// waitExit waits for the server's process to end, killing it (and
// failing the test) if it does not.
func (s *ctlServer) waitExit() {
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.t.Errorf("the server (pid %d) did not exit after quit; killing it:\n%s", s.cmd.Process.Pid, s.logText())
		_ = s.cmd.Process.Signal(syscall.SIGKILL) // Best effort: it must not outlive the test.
		<-s.exited
	}
}

// ctl runs `sandmux ctl -S SOCK args...` and returns what it printed and
// its exit code.
func (s *ctlServer) ctl(args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), callBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, sandmuxBin, append([]string{"ctl", "-S", s.sock}, args...)...)
	cmd.Env = s.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if exitErr, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), exitErr.ExitCode()
	} else if err != nil {
		// Not Fatal: ctl may run in a goroutine of the test.
		return out.String(), fmt.Sprintf("run sandmux ctl %q: %v", args, err), -1
	}
	return out.String(), errb.String(), 0
}

// ok is ctl that must succeed; it returns stdout.
func (s *ctlServer) ok(args ...string) string {
	s.t.Helper()
	out, errOut, code := s.ctl(args...)
	if code != exitOK {
		s.t.Fatalf("sandmux ctl %q: exit %d\nstdout: %s\nstderr: %s\nserver log:\n%s", args, code, out, errOut, s.logText())
	}
	return out
}

// fails is ctl that must exit with code, saying want on stderr.
func (s *ctlServer) fails(code int, want string, args ...string) {
	s.t.Helper()
	out, errOut, got := s.ctl(args...)
	if got != code || !strings.Contains(errOut, want) {
		s.t.Errorf("sandmux ctl %q: exit %d, stderr %q (stdout %q); want exit %d saying %q", args, got, errOut, out, code, want)
	}
}

// call sends one request over a connection of its own, from the test
// itself: for polling and floods, where a process per call costs too
// much.
func (s *ctlServer) call(req control.Request) (control.Reply, error) {
	conn, err := endpoint.Dial(s.sock)
	if err != nil {
		return control.Reply{}, err
	}
	cl := control.NewClient(conn)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(s.t.Context(), callBound)
	defer cancel()
	return cl.Call(ctx, req)
}

// callBound bounds every call a test makes, a wait included: a server
// that never answers fails the test, whose cleanup then quits it, rather
// than hanging it until go test's own timeout, which skips cleanups.
const callBound = time.Minute

// sessions is ctl --json ls, decoded.
func (s *ctlServer) sessions() []control.SessionInfo {
	s.t.Helper()
	var list []control.SessionInfo
	if err := json.Unmarshal([]byte(s.ok("--json", "ls")), &list); err != nil {
		s.t.Fatalf("ctl --json ls: %v", err)
	}
	return list
}

// waitScreen polls session's screen (with its scrollback) until it
// contains want. Nothing announces "the screen now shows X", so this
// polls, with a deadline that only bounds a failure.
func (s *ctlServer) waitScreen(session, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rep, err := s.call(control.Request{Op: control.OpScreen, Session: session, Scrollback: true})
		if err == nil && strings.Contains(rep.Screen, want) {
			return rep.Screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("pane %s never showed %q (%v); screen:\n%s", session, want, err, rep.Screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// connCount is how many connections the server's process holds: its
// Unix sockets that are not listening. Its other descriptors come and go
// on their own (a pane's PTY keeps a watched duplicate that closes while
// its reads are paced), and a count of every socket included a client's
// connection the server was still closing when the count was taken as
// the base, which a new connection then only matched.
func (s *ctlServer) connCount() int {
	s.t.Helper()
	dir := "/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd/"
	ents, err := os.ReadDir(dir)
	if err != nil {
		s.t.Fatalf("count the server's connections: %v", err)
	}
	listening, err := listeningUnixSockets()
	if err != nil {
		s.t.Fatalf("count the server's connections: %v", err)
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(dir + e.Name())
		inode, ok := strings.CutPrefix(target, "socket:[")
		if err == nil && ok && !listening[strings.TrimSuffix(inode, "]")] {
			n++
		}
	}
	return n
}

// listeningUnixSockets are the inodes of the listening Unix sockets, from
// /proc/net/unix (flag __SO_ACCEPTCON).
func listeningUnixSockets() (map[string]bool, error) {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil, err
	}
	listening := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		// Num RefCount Protocol Flags Type St Inode [Path]
		f := strings.Fields(line)
		if len(f) < 7 {
			continue
		}
		if flags, err := strconv.ParseUint(f[3], 16, 32); err == nil && flags&0x10000 != 0 {
			listening[f[6]] = true
		}
	}
	return listening, nil
}

// ls prints the documented table and JSON fields; run opens a pane that
// every way of naming a session reaches.
func TestCtlServerLsRun(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	if out := s.ok("wait", "1", "--state", "running", "--timeout", "30s"); out != "" {
		t.Errorf("ctl wait for running printed %q: a running pane has no exit code", out)
	}
	table := s.ok("ls")
	for _, col := range []string{"#", "ID", "NAME", "PROVIDER", "STATE", "EXIT", "REASON", "STARTED", "LAST OUTPUT", "BYTES", "PID"} {
		if !strings.Contains(strings.SplitN(table, "\n", 2)[0], col) {
			t.Errorf("ctl ls header lacks %q:\n%s", col, table)
		}
	}
	if !regexp.MustCompile(`(?m)^1\s+p0\s+cat\s+local\s+idle\s.*\srunning\s`).MatchString(table) {
		t.Errorf("ctl ls does not show pane 1 running cat:\n%s", table)
	}
	var raw []map[string]any
	if err := json.Unmarshal([]byte(s.ok("--json", "ls")), &raw); err != nil || len(raw) != 1 {
		t.Fatalf("ctl --json ls: %v, %v", raw, err)
	}
	for _, field := range []string{"number", "id", "name", "provider", "state", "exit_code", "reason", "started", "last_output", "bytes_out", "pid"} {
		if _, ok := raw[0][field]; !ok {
			t.Errorf("ctl --json ls has no field %q: %v", field, raw[0])
		}
	}
	si := s.sessions()[0]
	if si.Number != 1 || si.ID != "p0" || si.Name != "cat" || si.Provider != "local" || si.Phase != "running" || si.ExitCode != nil || si.Started.IsZero() {
		t.Errorf("ctl --json ls = %+v", si)
	}

	if out := s.ok("run", "--name", "answer", "--", "sh", "-c", "echo hi-$((6*7)); exec cat"); out != "2\n" {
		t.Errorf("ctl run printed %q, want the pane's number 2", out)
	}
	s.waitScreen("2", "hi-42")
	if si := s.sessions()[1]; si.BytesOut < int64(len("hi-42")) || si.PID == nil || !processAlive(*si.PID) {
		t.Errorf("ctl ls does not count pane 2's output or name its live process: bytes %d, pid %v", si.BytesOut, si.PID)
	}
	id := s.sessions()[1].ID
	for _, ref := range []string{"2", "answer", id} {
		if out := s.ok("screen", ref); !strings.Contains(out, "hi-42") {
			t.Errorf("ctl screen %s = %q, want pane 2's screen", ref, out)
		}
	}
	if out := s.ok("run", "--", "sh", "-c", "sleep 1000"); out != "3\n" {
		t.Errorf("ctl run printed %q, want 3", out)
	}
	if list := s.sessions(); len(list) != 3 || list[2].Name != "sleep" || list[2].LastOutput != nil {
		t.Errorf("a run without --name is named by its command's first word: %+v", list)
	}
	s.fails(exitUsage, "give the command to run", "run")
}

// send unescapes its TEXT, keys encodes key names, and a paste is
// bracketed only for a program that asked for it.
func TestCtlServerInput(t *testing.T) {
	s := startCtlServer(t, "",
		`stty raw -echo; echo READY; exec cat -A`,
		`printf '\033[?2004hREADY\n'; stty raw -echo; exec cat -A`)
	s.waitScreen("1", "READY")
	s.waitScreen("2", "READY")
	s.ok("send", "1", `a\tb\rc\e[d\x41\n`)
	s.waitScreen("1", `a^Ib^Mc^[[dA$`)
	s.ok("keys", "1", "enter", "ctrl+c", "up")
	s.waitScreen("1", `^M^C^[[A`)
	s.ok("send", "--paste", "2", "pasted")
	s.waitScreen("2", `^[[200~pasted^[[201~`)
	s.ok("send", "1", "plain", "--paste") // flags may follow the arguments
	if screen := s.waitScreen("1", "plain"); strings.Contains(screen, "200~") {
		t.Errorf("a paste into a program that did not ask for bracketed pastes was bracketed:\n%s", screen)
	}
	s.ok("send", "1", "--", "-dash")
	s.waitScreen("1", "-dash")
	s.fails(exitUsage, "", "send", "1", `\q`)
	s.fails(exitFailure, "unknown key", "keys", "1", "hyperspace")
}

// screen prints plain text by default, keeps SGR with --ansi, and the
// lines scrolled off with --scrollback.
func TestCtlServerScreen(t *testing.T) {
	s := startCtlServer(t, "", `printf '\033[31mred\033[0m\n'; seq 1 100; exec cat`)
	s.waitScreen("1", "100")
	plain := s.ok("screen", "1")
	if strings.ContainsRune(plain, 0x1b) || !strings.Contains(plain, "100") || hasLine(plain, "1") {
		t.Errorf("ctl screen = %q: want the visible lines only, no escapes", plain)
	}
	if back := s.ok("screen", "--scrollback", "1"); !hasLine(back, "1") || !strings.Contains(back, "red") {
		t.Errorf("ctl screen --scrollback lacks the scrolled-off lines:\n%s", back)
	}
	if ansi := s.ok("screen", "1", "--ansi", "--scrollback"); !strings.Contains(ansi, "\x1b[") || !strings.Contains(ansi, "red") {
		t.Errorf("ctl screen --ansi keeps no SGR: %q", ansi)
	}
}

func hasLine(text, line string) bool {
	for l := range strings.Lines(text) {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// sandboxConfig has one [[sandbox]] for ctl start.
const sandboxConfig = `
[[sandbox]]
name = "box"
command = "echo box-$((2*21)); exec cat"
`

// start opens a config's sandbox; wait, restart, kill and close drive
// panes through their lives, and each answers with the documented exit
// codes.
func TestCtlServerLifecycle(t *testing.T) {
	s := startCtlServer(t, sandboxConfig, "cat")
	if out := s.ok("start", "box"); out != "2\n" {
		t.Errorf("ctl start printed %q, want the pane's number 2", out)
	}
	s.waitScreen("box", "box-42")
	s.fails(exitFailure, `no sandbox "nosuch"`, "start", "nosuch")

	s.ok("run", "--name", "seven", "--", "sh", "-c", "exit 7")
	if out := s.ok("wait", "seven", "--state", "exited", "--timeout", "30s"); out != "7\n" {
		t.Errorf("ctl wait printed %q, want the exit code 7", out)
	}
	first := s.sessions()[2]
	s.fails(exitFailure, "was not exited within", "wait", "1", "--state", "exited", "--timeout", "200ms")
	s.fails(exitFailure, "only an exited, killed or failed pane restarts", "restart", "1")
	s.ok("restart", "seven")
	if out := s.ok("wait", "3", "--state", "exited", "--timeout", "30s"); out != "7\n" {
		t.Errorf("ctl wait after the restart printed %q, want 7", out)
	}
	if again := s.sessions()[2]; again.ID != first.ID || !again.Started.After(first.Started) {
		t.Errorf("a restart keeps the pane's id and starts it anew: before %+v, after %+v", first, again)
	}

	s.ok("kill", "1")
	if si := s.sessions()[0]; si.Phase != "killed" || si.State != "failed" || si.ExitCode == nil || *si.ExitCode != 137 {
		t.Errorf("after ctl kill, pane 1 is %+v; want killed with 137", si)
	}
	s.ok("close", "box") // returns once the teardown ended
	if list := s.sessions(); len(list) != 2 || list[1].Name != "seven" {
		t.Errorf("after ctl close box the panes are %+v", list)
	}
	if out := s.ok("wait", first.ID, "--state", "exited"); out != "7\n" {
		t.Errorf("ctl wait by id printed %q", out)
	}
}

// A close under way shows as closing, to ctl wait and ctl events alike.
func TestCtlServerClosing(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	ev := s.events()
	s.ok("run", "--name", "stubborn", "--", "sh", "-c", `trap "" HUP TERM; echo TRAPPED; while :; do sleep 1; done`)
	s.waitScreen("stubborn", "TRAPPED")
	waited := make(chan string, 1)
	go func() {
		out, errOut, code := s.ctl("wait", "stubborn", "--state", "closing", "--timeout", "60s")
		waited <- fmt.Sprintf("exit %d: %s%s", code, out, errOut)
	}()
	ev.next(t, "the run's start", func(e control.Event) bool { return e.Kind == control.EventStarted && e.Session.Name == "stubborn" })
	s.ok("close", "stubborn") // SIGHUP and SIGTERM are ignored: SIGKILL ends it
	ev.next(t, "a state event for closing", func(e control.Event) bool {
		return e.Kind == control.EventPhase && e.Session.Name == "stubborn" && e.Detail == "closing"
	})
	ev.next(t, "the close", func(e control.Event) bool { return e.Kind == control.EventClosed && e.Session.Name == "stubborn" })
	if got := <-waited; got != "exit 0: " {
		t.Errorf("ctl wait --state closing during a close: %s", got)
	}
}
