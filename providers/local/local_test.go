package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"golang.org/x/sys/unix"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
)

func TestMain(m *testing.M) {
	if os.Getenv("SANDMUX_LOCAL_HELPER") == "sigign" {
		os.Exit(helperPrintChildSigIgn())
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		// Beyond goroutines: no zombie child and no pane cgroup may
		// outlive the tests.
		if kids, err := childPids(); err == nil {
			for _, pid := range kids {
				if st, err := readStat(pid); err == nil && st.state == 'Z' {
					fmt.Fprintf(os.Stderr, "FAIL: zombie child %d left behind\n", pid)
					code = max(code, 1)
				}
			}
		}
		if parent, err := cgroupParent(); err == nil {
			if left, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("sandmux-%d-*", os.Getpid()))); len(left) > 0 {
				fmt.Fprintf(os.Stderr, "FAIL: pane cgroups left behind: %v\n", left)
				code = max(code, 1)
			}
		}
		os.Exit(code)
	}))
}

// open starts argv and registers a cleanup that kills and reaps it.
func open(t *testing.T, spec providers.Spec) providers.PTY {
	t.Helper()
	if spec.Size == (providers.Size{}) {
		spec.Size = providers.Size{Cols: 80, Rows: 24}
	}
	p, err := New("").Open(t.Context(), spec)
	if err != nil {
		t.Fatalf("Open(%v): %v", spec.Command, err)
	}
	t.Cleanup(func() { teardown(t, p) })
	return p
}

// teardown kills the group, waits, and verifies it is gone.
func teardown(t *testing.T, p providers.PTY) {
	t.Helper()
	_ = p.Signal(syscall.SIGKILL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.Wait(ctx); err != nil {
		t.Errorf("wait: %v", err)
	}
	waitGroupGone(t, p)
	_ = p.Close()
}

// waitGroupGone polls GroupAlive: the kernel finishes killing a group
// asynchronously and offers no event for it.
func waitGroupGone(t *testing.T, p providers.PTY) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive, err := p.GroupAlive()
		if err != nil {
			t.Fatalf("GroupAlive: %v", err)
		}
		if !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("process group still alive 10s after SIGKILL")
		}
		time.Sleep(5 * time.Millisecond) // a poll interval, not synchronisation: nothing to wait on
	}
}

func readAll(t *testing.T, p providers.PTY) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, p); err != nil {
		t.Fatalf("read output: %v", err)
	}
	return buf.String()
}

func TestOutputAndExitCode(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sh", "-c", "printf 'hello'; exit 3"}})
	if got := readAll(t, p); got != "hello" {
		t.Errorf("output = %q, want %q", got, "hello")
	}
	st, err := p.Wait(t.Context())
	if err != nil || st.Code != 3 || st.Signal != 0 {
		t.Errorf("Wait = %+v, %v; want code 3", st, err)
	}
}

func TestTermSizeDirEnv(t *testing.T) {
	dir := t.TempDir()
	p := open(t, providers.Spec{
		Command: []string{"sh", "-c", `echo "$TERM|$(stty size)|$(pwd)|$FOO"`},
		Dir:     dir, Env: []string{"FOO=bar"}, Size: providers.Size{Cols: 100, Rows: 30},
	})
	want := fmt.Sprintf("xterm-256color|30 100|%s|bar\r\n", dir)
	if got := readAll(t, p); got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestResize(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sh", "-c", "read x; stty size"}})
	if err := p.Resize(providers.Size{Cols: 132, Rows: 43}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, p); !strings.HasSuffix(got, "43 132\r\n") {
		t.Errorf("output = %q, want it to end with the new size", got)
	}
}

func TestSignalDeathStatus(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sleep", "1000"}})
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	st, err := p.Wait(t.Context())
	if err != nil || st.Signal != syscall.SIGTERM || st.ShellCode() != 143 {
		t.Errorf("Wait = %+v, %v; want death by SIGTERM", st, err)
	}
}

// A background child in the group must die with the leader, and the group
// check must see it gone (and reaped: no zombie left).
func TestGroupKillVerified(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sh", "-c", "sleep 1000 & echo $!; wait"}})
	line := make([]byte, 64)
	n, _ := p.Read(line)
	bgPid := strings.TrimSpace(string(line[:n]))
	if alive, _ := p.GroupAlive(); !alive {
		t.Fatal("group reported gone while running")
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, p)
	if _, err := os.Stat("/proc/" + bgPid); err == nil {
		t.Errorf("background sleep %s still has a /proc entry (unreaped zombie?)", bgPid)
	}
}

func TestCloseInterruptsRead(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sleep", "1000"}})
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		done <- err
	}()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close = %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked 10s after Close")
	}
}

func TestChildSignalsAtDefaults(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"grep", "^SigIgn", "/proc/self/status"}})
	checkSigIgn(t, readAll(t, p))
}

// Even when sandmux itself starts with signals ignored (SIGHUP under nohup
// or a daemon's start, SIGINT and SIGQUIT as a shell's background job),
// the child gets them at default: a pane ignoring SIGHUP outlived the
// teardown's first stage (seen when the suite ran under nohup).
func TestChildSignalsAtDefaultsWhenParentIgnores(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" INT QUIT HUP TERM PIPE; exec "$0" -test.run=^$`, os.Args[0])
	cmd.Env = append(os.Environ(), "SANDMUX_LOCAL_HELPER=sigign")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	checkSigIgn(t, string(out))
}

func helperPrintChildSigIgn() int {
	if !signalIgnoredAtStart() {
		fmt.Println("helper: SIGINT was not ignored at start; the test setup is wrong")
		return 1
	}
	p, err := New("").Open(context.Background(), providers.Spec{Command: []string{"grep", "^SigIgn", "/proc/self/status"}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	out, _ := io.ReadAll(p)
	_, _ = p.Wait(context.Background())
	_ = p.Close()
	fmt.Print(string(out))
	return 0
}

func signalIgnoredAtStart() bool {
	// Read our own mask: the runtime keeps ignored-at-start signals ignored.
	b, _ := os.ReadFile("/proc/self/status")
	m := regexp.MustCompile(`SigIgn:\s*([0-9a-f]+)`).FindSubmatch(b)
	var mask uint64
	if m != nil {
		fmt.Sscanf(string(m[1]), "%x", &mask)
	}
	return mask&(1<<(syscall.SIGINT-1)) != 0
}

func checkSigIgn(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`SigIgn:\s*([0-9a-f]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no SigIgn line in %q", out)
	}
	var mask uint64
	fmt.Sscanf(m[1], "%x", &mask)
	for _, sig := range resetSignals {
		if mask&(1<<(sig.(syscall.Signal)-1)) != 0 {
			t.Errorf("%v is ignored in the child (SigIgn %s)", sig, m[1])
		}
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestContract_S3_FailedSpawnClosesBothEnds: a command that cannot start
// leaves no descriptor open.
func TestContract_S3_FailedSpawnClosesBothEnds(t *testing.T) {
	before := openFDs(t)
	for range 20 {
		_, err := New("").Open(t.Context(), providers.Spec{Command: []string{"/nonexistent/sandmux-test"}})
		if err == nil {
			t.Fatal("Open of a missing program succeeded")
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors: %d before, %d after 20 failed starts", before, after)
	}
}

// TestContract_S1_CancelledStartLeavesNothing: cancelling at the step after
// the child started kills and reaps it and closes the master before Open
// returns.
func TestContract_S1_CancelledStartLeavesNothing(t *testing.T) {
	before := openFDs(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("user closed the pane")
	var pid int
	testHookAfterStart = func(p int) { pid = p; cancel(cause) }
	defer func() { testHookAfterStart = nil }()
	_, err := New("").Open(ctx, providers.Spec{Command: []string{"sh", "-c", "sleep 1000 & sleep 1000"}})
	if !errors.Is(err, cause) {
		t.Fatalf("Open = %v, want the cancellation cause", err)
	}
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors: %d before, %d after a cancelled start", before, after)
	}
	if pid == 0 {
		t.Fatal("the gate after start never ran")
	}
	// Killed and reaped: no process, not even a zombie, has that pid.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("child %d still exists after a cancelled start (kill: %v)", pid, err)
	}
	// Cancelled before anything was created: nothing to release.
	if _, err := New("").Open(ctx, providers.Spec{Command: []string{"true"}}); !errors.Is(err, cause) {
		t.Errorf("Open with a done context = %v, want the cause", err)
	}
}

// Under job control each job has a process group of its own; a kill still
// reaches and verifies the whole session.
func TestJobInOwnGroupKilledAndVerified(t *testing.T) {
	need := func(tool string) {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
				t.Fatalf("SKIPPED: %s missing", tool)
			}
			t.Skipf("SKIPPED: %s missing", tool)
		}
	}
	need("python3")
	p := open(t, providers.Spec{Command: []string{"sh", "-c",
		`python3 -c 'import os,time; os.setpgid(0,0); print("job", os.getpid(), os.getpgid(0), flush=True); time.sleep(1000)' & wait`}})
	var buf bytes.Buffer
	line := make([]byte, 256)
	for !strings.Contains(buf.String(), "\n") {
		n, err := p.Read(line)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line[:n])
	}
	var jobPid, jobPgid int
	fmt.Sscanf(strings.TrimSpace(buf.String()), "job %d %d", &jobPid, &jobPgid)
	if jobPgid == 0 || jobPgid == jobPid && jobPid == 0 {
		t.Fatalf("could not read the job: %q", buf.String())
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, p)
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", jobPid)); err == nil {
		t.Errorf("the job %d in its own process group survived the kill (or is an unreaped zombie)", jobPid)
	}
}

// ReadNow never waits: nothing yet is 0 and no error; what the child
// wrote is read whole once the master is readable; a closed PTY is
// io.EOF.
func TestReadNow(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sh", "-c", "read x; printf 'got %s' \"$x\"; read y"}})
	h := p.(*handle)
	buf := make([]byte, 64)
	if n, err := h.ReadNow(buf); n != 0 || err != nil {
		t.Fatalf("ReadNow before any output = %d, %v; want 0, nil", n, err)
	}
	if _, err := h.Write([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for !bytes.Contains(got, []byte("got go")) {
		waitReadable(t, h)
		n, err := h.ReadNow(buf)
		if err != nil {
			t.Fatalf("ReadNow: %v", err)
		}
		got = append(got, buf[:n]...)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := h.ReadNow(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("ReadNow after Close = %d, %v; want io.EOF", n, err)
	}
}

// waitReadable waits until the master has output to read: poll(2) on a
// duplicate of it.
func waitReadable(t *testing.T, h *handle) {
	t.Helper()
	f, err := h.master.dup()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var perr error
	if err := rc.Control(func(fd uintptr) {
		n, perr = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
	}); err != nil || perr != nil || n != 1 {
		t.Fatalf("the master never became readable: %d, %v, %v", n, err, perr)
	}
}
