package docker

import (
	"strings"
	"syscall"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

func TestShellIO(t *testing.T) {
	needDocker(t)
	tm := open(t, imageSpec(t)) // the default shell, /bin/sh
	tm.send("echo \"A$((6*7))B\" \"$TERM\" \"$(pwd)\"\r")
	tm.expect("A42B xterm-256color /workspace")
	tm.send("exit 5\r")
	if st := tm.wait(); st != (providers.ExitStatus{Code: 5}) {
		t.Errorf("Wait = %+v, want exit 5", st)
	}
	tm.all()
}

func TestEnvSizeAndExitCode(t *testing.T) {
	needDocker(t)
	spec := imageSpec(t, "sh", "-c", `read x; echo "$FOO|$(stty size)"; exit 3`)
	spec.Env, spec.Size, spec.Term = []string{"FOO=bar"}, providers.Size{Cols: 100, Rows: 30}, "vt100"
	tm := open(t, spec)
	tm.send("\r")
	tm.expect("bar|30 100\r\n")
	if st := tm.wait(); st != (providers.ExitStatus{Code: 3}) {
		t.Errorf("Wait = %+v, want exit 3", st)
	}
	tm.all()
	// Every call returns the same result.
	if st := tm.wait(); st.Code != 3 {
		t.Errorf("second Wait = %+v, want exit 3", st)
	}
}

func TestResize(t *testing.T) {
	needDocker(t)
	tm := open(t, imageSpec(t, "sh", "-c", "read x; stty size"))
	if err := tm.pty.Resize(providers.Size{Cols: 132, Rows: 43}); err != nil {
		t.Fatal(err)
	}
	tm.send("go\r")
	if out := tm.all(); !strings.HasSuffix(out, "43 132\r\n") {
		t.Errorf("output = %q, want it to end with the new size", out)
	}
}

func TestSignalDeathStatus(t *testing.T) {
	needDocker(t)
	tm := open(t, imageSpec(t, "sleep", "1000"))
	if err := tm.pty.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	st := tm.wait()
	if st.Signal != syscall.SIGTERM || st.ShellCode() != 143 {
		t.Errorf("Wait = %+v, want death by SIGTERM", st)
	}
}

// TestContract_C12_KillCreatedContainerVerified: SIGKILL to a sandbox in a
// container sandmux created kills the container, with the background
// children of the command, and GroupAlive sees the session gone.
func TestContract_C12_KillCreatedContainerVerified(t *testing.T) {
	needDocker(t)
	tm := open(t, imageSpec(t, "sh", "-c", "sleep 1001 & sleep 1001 & echo started; wait"))
	tm.expect("started")
	if alive, err := tm.pty.GroupAlive(); err != nil || !alive {
		t.Fatalf("GroupAlive while running = %v, %v", alive, err)
	}
	if err := tm.pty.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if st := tm.wait(); st.Signal != syscall.SIGKILL {
		t.Errorf("Wait = %+v, want death by SIGKILL", st)
	}
	tm.waitGroupGone()
	if _, running := exists(t, tm.handle().cid); running {
		t.Error("the container still runs after SIGKILL")
	}
}

// TestContract_C12_KillAttachedSessionVerified: in a container sandmux did
// not create, SIGKILL reaches every process of the exec's session, found
// from inside the container, and the container itself keeps running.
func TestContract_C12_KillAttachedSessionVerified(t *testing.T) {
	needDocker(t)
	name := runningContainer(t)
	tm := open(t, containerSpec(t, name, "sh", "-c", "sleep 1002 & sleep 1002 & echo started; wait"))
	tm.expect("started")
	if n := count(processes(t, name), "sleep 1002"); n != 2 {
		t.Fatalf("%d background sleeps, want 2", n)
	}
	if err := tm.pty.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if st := tm.wait(); st.Signal != syscall.SIGKILL {
		t.Errorf("Wait = %+v, want death by SIGKILL", st)
	}
	tm.waitGroupGone()
	if n := count(processes(t, name), "sleep 1002"); n != 0 {
		t.Errorf("%d background sleeps left after a verified kill", n)
	}
	if _, running := exists(t, name); !running {
		t.Error("the attached container stopped; only the session should die")
	}
}

func count(procs []string, s string) int {
	n := 0
	for _, p := range procs {
		if p == s {
			n++
		}
	}
	return n
}

// An attached exec runs in the container's working directory, as the
// configured user, and Close hangs it up like a closed terminal: an exec
// outlives its connection otherwise.
func TestAttachByNameAndCloseHangsUp(t *testing.T) {
	needDocker(t)
	name := runningContainer(t)
	spec := containerSpec(t, name)
	spec.Options["user"] = "1234:5678"
	tm := open(t, spec)
	tm.send("echo \"X$(id -u):$(id -g)\" \"$(pwd)\"; sleep 1003\r")
	tm.expect("X1234:5678 /work")
	eventually(t, "sleep 1003 did not start", func() bool { return count(processes(t, name), "sleep 1003") == 1 })
	if err := tm.pty.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the session survived Close", func() bool { return count(processes(t, name), "sleep 1003") == 0 })
	if _, running := exists(t, name); !running {
		t.Error("Close stopped a container sandmux did not create")
	}
}

func TestCloseRemovesCreatedContainer(t *testing.T) {
	needDocker(t)
	tm := open(t, imageSpec(t, "sleep", "1000"))
	cid := tm.handle().cid
	if found, running := exists(t, cid); !found || !running {
		t.Fatalf("created container: found %v, running %v", found, running)
	}
	labels := containerLabels(t, cid)
	if labels[Label] != "1" {
		t.Errorf("labels = %v, want %s=1", labels, Label)
	}
	if err := tm.pty.Close(); err != nil {
		t.Fatal(err)
	}
	if found, _ := exists(t, cid); found {
		t.Error("the created container is still there after Close")
	}
	if err := tm.pty.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func TestCloseKeepsContainerWhenAsked(t *testing.T) {
	needDocker(t)
	spec := imageSpec(t, "sleep", "1000")
	spec.Options["remove_on_close"] = false
	tm := open(t, spec)
	cid := tm.handle().cid
	if err := tm.pty.Close(); err != nil {
		t.Fatal(err)
	}
	if found, _ := exists(t, cid); !found {
		t.Error("remove_on_close = false, yet Close removed the container")
	}
	// The run's cleanup removes it.
}

func containerLabels(t *testing.T, cid string) map[string]string {
	t.Helper()
	for _, c := range runContainers(t.Context()) {
		if c.ID == cid {
			return c.Labels
		}
	}
	t.Fatalf("container %s not listed", cid)
	return nil
}

func TestMissingContainerAndImage(t *testing.T) {
	needDocker(t)
	for _, opts := range []map[string]any{
		{"container": "sandmux-no-such-container-" + runID},
		{"image": "sandmux-no-such-image-" + runID},
	} {
		name := sandboxName(t)
		_, err := New().Open(t.Context(), providers.Spec{Name: name, Options: opts})
		if err == nil {
			t.Fatalf("Open with %v succeeded", opts)
		}
		if !strings.Contains(err.Error(), "docker") {
			t.Errorf("error %q does not say what to check", err)
		}
		if left := containersOf(t, name); len(left) > 0 {
			t.Errorf("a failed Open left containers %v", left)
		}
	}
}

// The session's teardown, step by step: SIGHUP to an interactive shell
// with a background job (in a process group of its own, as job control
// puts it, but in the exec's session), the shell's exit seen by Wait, the
// job found and verified gone by GroupAlive, then Close.
func TestTeardownLikeSession(t *testing.T) {
	needDocker(t)
	name := runningContainer(t)
	tm := open(t, containerSpec(t, name))
	tm.send("sleep 1006 & echo \"job$((1+1))\"\r")
	tm.expect("job2")
	if err := tm.pty.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if st := tm.wait(); st.Signal != syscall.SIGHUP {
		t.Errorf("Wait = %+v, want death by SIGHUP", st)
	}
	tm.waitGroupGone()
	if n := count(processes(t, name), "sleep 1006"); n != 0 {
		t.Errorf("the background job survived (%d left) though GroupAlive said gone", n)
	}
	if err := tm.pty.Close(); err != nil {
		t.Fatal(err)
	}
}

// A command that ends at once still opens and its exit code comes back.
// (Ending between the engine's report that it runs and the initial resize,
// which then finds no such exec, was seen once in a full run; it is too
// rare to force here, and settle now treats it as an ended command.)
func TestInstantExit(t *testing.T) {
	needDocker(t)
	for i := range 8 {
		tm := open(t, imageSpec(t, "sh", "-c", "exit 4"))
		if st := tm.wait(); st.Code != 4 {
			t.Fatalf("run %d: exit %+v, want 4", i, st)
		}
	}
}

// TestContract_C14_EscapeesInContainerDie: a child that left the exec's
// session (setsid, also double-forked) still carries the exec's marker, so
// the kill finds its session inside the container, and the kill is
// verified only once it is gone too.
func TestContract_C14_EscapeesInContainerDie(t *testing.T) {
	needDocker(t)
	name := runningContainer(t)
	tm := open(t, containerSpec(t, name, "sh", "-c", "setsid sleep 1003 & (setsid sleep 1003 &); sleep 0 & echo started; wait"))
	tm.expect("started")
	eventually(t, "both escapees to run", func() bool { return count(processes(t, name), "sleep 1003") == 2 })
	if err := tm.pty.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tm.wait()
	tm.waitGroupGone()
	if n := count(processes(t, name), "sleep 1003"); n != 0 {
		t.Errorf("%d escaped sleeps left in the container after a verified kill", n)
	}
}
