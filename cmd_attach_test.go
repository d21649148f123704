package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// ctlIn runs sandmux ctl against the server of a test's terminals.
func ctlIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(sandmuxBin, append([]string{"ctl", "-S", serverSocket(dir)}, args...)...)
	cmd.Env = isolatedEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sandmux ctl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// The server outlives its clients: prefix d detaches, a terminal killed
// under a client detaches it too, and attach in a new terminal shows the
// earlier output and takes keys. Two clients of different sizes then
// share the pane, and a quit from one ends both, leaving nothing.
func TestTUIDetachAttachQuit(t *testing.T) {
	first := startTerm(t, 100, 30, sandmuxBin+" 'bash --norc'")
	dir := first.dir
	first.waitStarted()
	first.typeText("echo first-$((6*7))")
	first.keys("Enter")
	first.waitText("first-42")
	first.keys("C-b", "d")
	if s := first.waitExit(); !strings.Contains(s, "[detached") || !strings.Contains(s, "EXIT=0") {
		t.Fatalf("prefix d did not detach cleanly:\n%s", s)
	}
	first.checkRestored()
	if ls := ctlIn(t, dir, "ls"); !strings.Contains(ls, "running") {
		t.Fatalf("after detaching, ctl ls shows no running session:\n%s", ls)
	}

	second := startTermIn(t, dir, 90, 25, sandmuxBin+" attach")
	second.waitText("first-42")
	second.kill() // the terminal goes away under the client
	if ls := ctlIn(t, dir, "ls"); !strings.Contains(ls, "running") {
		t.Fatalf("after the client's terminal went away, ctl ls shows no running session:\n%s", ls)
	}

	a := startTermIn(t, dir, 80, 24, sandmuxBin+" attach")
	b := startTermIn(t, dir, 120, 40, sandmuxBin+" attach")
	a.waitText("first-42")
	b.waitText("first-42")
	a.typeText("echo both-$((5*5))")
	a.keys("Enter")
	a.waitText("both-25")
	b.waitText("both-25")
	pane := serverPid(t, dir)
	// A pane that ignores SIGHUP and SIGTERM holds the teardown for its
	// graces: long enough to see every client show the quit's modal.
	ctlIn(t, dir, "run", "--name", "stubborn", "--", "sh", "-c", "trap '' HUP TERM; while :; do sleep 1; done")
	a.waitText("stubborn")
	b.keys("C-b", "q")
	b.waitText("Quit and tear them all down?")
	b.keys("y")
	a.waitText("Quitting: tearing down every session")
	b.waitText("Quitting: tearing down every session")
	for _, tt := range []*tmuxTerm{a, b} {
		s := tt.waitExit()
		if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "bash: ") {
			t.Errorf("a client did not end with the summary:\n%s", s)
		}
		tt.checkRestored()
	}
	if _, err := os.Stat(serverSocket(dir)); err == nil {
		t.Errorf("the server's socket outlived the quit")
	}
	if processAlive(pane) {
		t.Errorf("the server (pid %d) outlived the quit", pane)
	}
}

// attach with no server running says so and how to start one.
func TestAttachWithoutServer(t *testing.T) {
	tt := startTerm(t, 100, 10, sandmuxBin+" attach -L nothere")
	s := tt.waitExit()
	if !strings.Contains(s, "no sandmux server is running") || !strings.Contains(s, "start one with sandmux") || !strings.Contains(s, "EXIT=1") {
		t.Errorf("attach without a server:\n%s", s)
	}
	tt.checkRestored()
}
