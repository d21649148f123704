package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// open opens spec on s (options from s unless spec has them) and registers
// a cleanup that kills, waits for and closes the handle.
func open(t *testing.T, s *server, spec providers.Spec) providers.PTY {
	t.Helper()
	if spec.Options == nil {
		spec.Options = s.options(t, "")
	}
	if spec.Size == (providers.Size{}) {
		spec.Size = providers.Size{Cols: 80, Rows: 24}
	}
	p, err := New(nil).Open(t.Context(), spec)
	if err != nil {
		t.Fatalf("Open(%q): %v", spec.Command, err)
	}
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = p.Wait(ctx) // The result was checked by the test, if it matters.
		_ = p.Close()
	})
	return p
}

// term reads a PTY on its own goroutine and lets a test wait for output.
type term struct {
	p       providers.PTY
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	done    chan struct{}
	err     error
}

func watch(t *testing.T, p providers.PTY) *term {
	t.Helper()
	tm := &term{p: p, changed: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		b := make([]byte, 4096)
		for {
			n, err := p.Read(b)
			tm.mu.Lock()
			tm.buf.Write(b[:n])
			if err != nil {
				tm.err = err
			}
			tm.mu.Unlock()
			select {
			case tm.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = p.Close(); <-tm.done })
	return tm
}

func (tm *term) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.buf.String()
}

// waitFor waits until the output contains s.
func (tm *term) waitFor(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for !strings.Contains(tm.output(), s) {
		select {
		case <-tm.changed:
		case <-tm.done:
			if !strings.Contains(tm.output(), s) {
				t.Fatalf("output ended (%v) without %q: %q", tm.err, s, tm.output())
			}
		case <-timeout:
			t.Fatalf("no %q in the output after 20s: %q", s, tm.output())
		}
	}
}

// end waits for the end of output and returns it with the Read error.
func (tm *term) end(t *testing.T) (string, error) {
	t.Helper()
	select {
	case <-tm.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("output still open after 20s: %q", tm.output())
	}
	return tm.output(), tm.err
}

func wait(t *testing.T, p providers.PTY) (providers.ExitStatus, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	return p.Wait(ctx)
}

func TestInteractiveShell(t *testing.T) {
	s := startServer(t)
	p := open(t, s, providers.Spec{Name: "shell"})
	tm := watch(t, p)
	if _, err := p.Write([]byte("echo hi-$((6*7)) $TERM\r")); err != nil {
		t.Fatal(err)
	}
	tm.waitFor(t, "hi-42 xterm-256color")
	if _, err := p.Write([]byte("exit 3\r")); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.end(t); !errors.Is(err, io.EOF) {
		t.Errorf("Read at the end = %v, want io.EOF", err)
	}
	if st, err := wait(t, p); err != nil || st.Code != 3 {
		t.Errorf("Wait = %+v, %v; want code 3", st, err)
	}
	if alive, err := p.GroupAlive(); alive || err != nil {
		t.Errorf("GroupAlive after exit = %v, %v", alive, err)
	}
}

func TestExitCodes(t *testing.T) {
	s := startServer(t)
	for _, c := range []struct {
		cmd  string
		want providers.ExitStatus
	}{
		{"exit 0", providers.ExitStatus{Code: 0}},
		{"exit 3", providers.ExitStatus{Code: 3}},
		{"kill -TERM $$", providers.ExitStatus{Code: -1, Signal: syscall.SIGTERM}},
	} {
		p := open(t, s, providers.Spec{Command: []string{"sh", "-c", c.cmd}})
		tm := watch(t, p)
		if _, err := tm.end(t); !errors.Is(err, io.EOF) {
			t.Errorf("%s: Read at the end = %v, want io.EOF", c.cmd, err)
		}
		if st, err := wait(t, p); err != nil || st != c.want {
			t.Errorf("%s: Wait = %+v, %v; want %+v", c.cmd, st, err, c.want)
		}
	}
}

func TestTermSizeDirEnv(t *testing.T) {
	s := startServer(t)
	dir := filepath.Join(t.TempDir(), "work space")
	p := open(t, s, providers.Spec{
		Command: []string{"sh", "-c", `echo "$TERM|$(stty size)|$(pwd)|$SANDMUX_ACCEPTED|$OTHER"`},
		Dir:     dir, Term: "screen", Size: providers.Size{Cols: 100, Rows: 30},
		Env: []string{"SANDMUX_ACCEPTED=by setenv", "OTHER=it's exported"},
	})
	out, _ := watch(t, p).end(t)
	want := "screen|30 100|" + dir + "|by setenv|it's exported\r\n"
	if out != want {
		t.Errorf("output = %q, want %q", out, want)
	}
}

func TestResize(t *testing.T) {
	s := startServer(t)
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "stty size; read x; stty size"}})
	tm := watch(t, p)
	tm.waitFor(t, "24 80\r\n")
	if err := p.Resize(providers.Size{Cols: 132, Rows: 43}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	if out, _ := tm.end(t); !strings.HasSuffix(out, "43 132\r\n") {
		t.Errorf("output = %q, want it to end with the new size", out)
	}
}

// Signals reach the pane's processes even where sshd refuses signal
// requests (root logins, as here): the sweep delivers them.
func TestSignalDelivered(t *testing.T) {
	s := startServer(t)
	for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT} {
		// Signalled once the sleep runs: sh -c catches SIGINT, and one
		// that lands while it forks or execs is lost; and a process in
		// the midst of exec shows the sweep no environment, so no
		// marker. A loaded machine widens both moments.
		p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "echo ready $$.; exec sleep 1000"}})
		tm := watch(t, p)
		waitExeced(t, tm, "sleep")
		if err := p.Signal(sig); err != nil {
			t.Fatalf("Signal(%v): %v", sig, err)
		}
		if st, err := wait(t, p); err != nil || st.Signal != sig {
			t.Errorf("after Signal(%v): Wait = %+v, %v", sig, st, err)
		}
	}
	p := open(t, s, providers.Spec{Command: []string{"sleep", "1000"}})
	if err := p.Signal(syscall.Signal(40)); err == nil || !strings.Contains(err.Error(), "RFC 4254") {
		t.Errorf("Signal(40) = %v; SSH has no name for it", err)
	}
}

// TestContract_C12_KillVerified: after Signal(SIGKILL) and Wait, GroupAlive
// turns false only once the remote processes, a background one included,
// are really gone.
func TestContract_C12_KillVerified(t *testing.T) {
	s := startServer(t)
	pids := filepath.Join(t.TempDir(), "pids")
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "sleep 1000 & echo $$ $! > " + pids + "; echo ready; wait"}})
	tm := watch(t, p)
	tm.waitFor(t, "ready")
	if alive, _ := p.GroupAlive(); !alive {
		t.Fatal("group reported gone while running")
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if st, err := wait(t, p); err != nil || st.Signal != syscall.SIGKILL {
		t.Errorf("Wait = %+v, %v; want death by SIGKILL", st, err)
	}
	waitGroupGone(t, p)
	for _, pid := range strings.Fields(readFile(t, pids)) {
		n, _ := strconv.Atoi(pid)
		if processRunning(n) {
			t.Errorf("remote process %d still runs after GroupAlive reported the group gone", n)
		}
	}
}

// A process that left the session and ignores SIGHUP outlives the
// session's end; GroupAlive sees it, and SIGKILL after the end still
// reaches it: the session layer's escalation works on SSH hosts too.
func TestContract_C12_EscapedProcess(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "escape.sh")
	writeFile(t, script, `setsid sh -c 'trap "" HUP; echo $$ > `+dir+`/pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &
while [ ! -s `+dir+`/pid ]; do sleep 0.01; done
echo ready
sleep 1000
`)
	p := open(t, s, providers.Spec{Command: []string{"sh", script}})
	tm := watch(t, p)
	tm.waitFor(t, "ready")
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if st, err := wait(t, p); err != nil || st.Signal != syscall.SIGHUP {
		t.Errorf("Wait = %+v, %v; want death by SIGHUP", st, err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, dir+"/pid")))
	if alive, err := p.GroupAlive(); !alive || err != nil || !processRunning(pid) {
		t.Fatalf("GroupAlive = %v, %v with the escaped process %d running: %v", alive, err, pid, processRunning(pid))
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, p)
	if processRunning(pid) {
		t.Errorf("escaped process %d still runs after GroupAlive reported none", pid)
	}
}

// waitExeced waits for the "ready PID." a pane's shell prints before it
// execs name, then until that process runs name with the pane's marker
// in its environment, as the sweep reads it.
func waitExeced(t *testing.T, tm *term, name string) {
	t.Helper()
	pid := readyPid(t, tm)
	proc := "/proc/" + strconv.Itoa(pid) + "/"
	deadline := time.Now().Add(20 * time.Second)
	for {
		comm, _ := os.ReadFile(proc + "comm")
		env, _ := os.ReadFile(proc + "environ")
		if strings.TrimSpace(string(comm)) == name && bytes.Contains(env, []byte(markerVar+"=")) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d does not run %s with the pane's marker 20s after it said it would: %q", pid, name, comm)
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: exec has no event to wait on
	}
}

// readyPid waits for the "ready PID." a pane's shell prints first and
// returns the PID.
func readyPid(t *testing.T, tm *term) int {
	t.Helper()
	tm.waitFor(t, ".")
	var pid int
	if _, err := fmt.Sscanf(strings.TrimSpace(tm.output()), "ready %d.", &pid); err != nil {
		t.Fatalf("no pid in the shell's %q: %v", tm.output(), err)
	}
	return pid
}

// waitGroupGone polls GroupAlive: a killed process leaves the host's
// process table asynchronously, with no event to wait on.
func waitGroupGone(t *testing.T, p providers.PTY) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		alive, err := p.GroupAlive()
		if err != nil {
			t.Fatalf("GroupAlive: %v", err)
		}
		if !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("GroupAlive still true 20s after SIGKILL")
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: no event to wait on
	}
}

// processRunning reports whether pid exists and is not a zombie: the
// orphaned background sleep is reparented to PID 1, which this test does
// not own and which may be slow to reap it.
func processRunning(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// waitProcessGone polls: a remote hang-up reaches the process through sshd
// and the kernel, with no event the test can wait on.
func waitProcessGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for processRunning(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // a failed test leaves nothing running
			t.Fatalf("remote process %d still runs 20s later", pid)
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: no event to wait on
	}
}

// Close ends a Read that waits, and, the remote command once running,
// the command too: sshd hangs up its terminal. (Closed before the
// command runs, in the moment between sshd's fork and the child taking
// its terminal, the command may start with no terminal to hang up and
// outlive the connection: the test waits for it to run first.)
func TestCloseInterruptsRead(t *testing.T) {
	s := startServer(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "echo $$ > " + pidFile + "; echo ready; exec sleep 1000"}})
	tm := watch(t, p)
	tm.waitFor(t, "ready")
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.end(t); !errors.Is(err, io.EOF) {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	waitProcessGone(t, pid)
}
