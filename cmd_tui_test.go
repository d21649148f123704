package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Four panes in a 2×2 grid at 121×41: columns at x=0 and x=61, rows at
// y=0 and y=20, each 60×20 (title line included).
var quad = [4][2]int{{0, 0}, {61, 0}, {0, 20}, {61, 20}}

func quadRegion(screen string, i int) string { return region(screen, quad[i][0], quad[i][1], 60, 20) }

func startQuad(t *testing.T) *tmuxTerm {
	t.Helper()
	cmd := sandmuxBin
	for _, n := range []string{"A", "B", "C", "D"} {
		cmd += fmt.Sprintf(` 'echo READY-%s; exec cat'`, n)
	}
	tt := startTerm(t, 121, 41, cmd)
	tt.waitFor("four ready panes", func(s string) bool {
		for i, n := range []string{"A", "B", "C", "D"} {
			// In the body, not the title: the pane is named by its
			// command's first words, READY-n among them.
			if !slices.ContainsFunc(strings.Split(quadRegion(s, i), "\n"), func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "READY-"+n) }) {
				return false
			}
		}
		return true
	})
	return tt
}

// waitPane waits until pane i of the quad shows text.
func (tt *tmuxTerm) waitPane(i int, text string) string {
	tt.t.Helper()
	return tt.waitFor(fmt.Sprintf("%q in pane %d", text, i), func(s string) bool { return strings.Contains(quadRegion(s, i), text) })
}

// only checks that text shows in exactly the panes listed.
func only(t *testing.T, screen, text string, panes ...int) {
	t.Helper()
	for i := range 4 {
		want := false
		for _, p := range panes {
			want = want || p == i
		}
		if got := strings.Contains(quadRegion(screen, i), text); got != want {
			t.Errorf("%q in pane %d: %v, want %v\n%s", text, i, got, want, screen)
		}
	}
}

func TestTUITypingFocusZoomBroadcast(t *testing.T) {
	tt := startQuad(t)

	tt.typeText("alpha-1")
	tt.keys("Enter")
	s := tt.waitPane(0, "alpha-1\nalpha-1") // the tty's echo, then cat's
	only(t, s, "alpha-1", 0)

	tt.keys("C-b", "Right")
	tt.typeText("beta-2")
	tt.keys("Enter")
	s = tt.waitPane(1, "beta-2\nbeta-2")
	only(t, s, "beta-2", 1)

	tt.keys("C-b", "z")
	tt.waitFor("pane B zoomed", func(s string) bool {
		return strings.Contains(s, "READY-B") && !strings.Contains(s, "READY-A") && strings.Contains(s, "ZOOM")
	})
	tt.keys("C-b", "z")
	tt.waitFor("unzoomed", func(s string) bool { return strings.Contains(s, "READY-A") && strings.Contains(s, "READY-D") })

	// Broadcast: B (focused) and D, picked; A and C not.
	tt.keys("C-b", "b", "C-b", "Down", "C-b", "Space")
	tt.waitText("BROADCAST")
	tt.typeText("gamma-3")
	tt.keys("Enter")
	s = tt.waitFor("gamma in B and D", func(s string) bool {
		return strings.Contains(quadRegion(s, 1), "gamma-3\ngamma-3") && strings.Contains(quadRegion(s, 3), "gamma-3\ngamma-3")
	})
	only(t, s, "gamma-3", 1, 3)
	tt.keys("C-b", "b")
	tt.typeText("delta-4")
	tt.keys("Enter")
	s = tt.waitPane(3, "delta-4\ndelta-4")
	only(t, s, "delta-4", 3)

	tt.keys("C-b", "q")
	tt.waitText("Quit and tear them all down?")
	tt.keys("y")
	tt.waitExit()
	tt.checkRestored()
}

var pgidRe = regexp.MustCompile(`PG=(\d+)`)

// pgids reads the process groups the panes printed.
func pgids(t *testing.T, s string, n int) []int {
	t.Helper()
	var out []int
	for _, m := range pgidRe.FindAllStringSubmatch(s, -1) {
		id, _ := strconv.Atoi(m[1])
		out = append(out, id)
	}
	if len(out) != n {
		t.Fatalf("found %d process groups on screen, want %d:\n%s", len(out), n, s)
	}
	return out
}

const sleepers = `'echo PG=$$; sleep 1000 & sleep 1000'`

// escaper leaves its pane's session: a setsid child, which containment
// must still reach (issue: it survived every teardown).
const escaper = `'echo PG=$$; setsid sleep 1000 & echo ESC=$!; sleep 1000'`

var escRe = regexp.MustCompile(`ESC=(\d+)`)

// processAlive reports whether pid runs (a zombie does not count).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// k on a pane running a shell with a background sleep leaves no sleep.
func TestTUIKillLeavesNoSleep(t *testing.T) {
	tt := startTerm(t, 121, 41, sandmuxBin+" "+sleepers+" 'exec cat'")
	s := tt.waitFor("a process group", func(s string) bool { return len(pgidRe.FindAllString(s, -1)) == 1 })
	pg := pgids(t, s, 1)[0]
	if len(processesInGroup(pg)) < 2 {
		t.Fatalf("group %d is not running its sleeps", pg)
	}
	tt.keys("C-b", "k")
	tt.waitText("killed")
	if left := processesInGroup(pg); len(left) > 0 {
		t.Errorf("after k the group still has processes: %v", left)
	}
	tt.keys("C-b", "q", "y")
	tt.waitExit()
}

// q then y (or SIGTERM or SIGINT to the server) exits with no child
// left, a summary line per session, and the outer terminal restored.
func TestTUIQuitLeavesNothing(t *testing.T) {
	for _, how := range []string{"keys", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			tt := startTerm(t, 121, 41, sandmuxBin+" "+sleepers+" "+escaper)
			s := tt.waitFor("two process groups", func(s string) bool {
				return len(pgidRe.FindAllString(s, -1)) == 2 && escRe.MatchString(s)
			})
			groups := pgids(t, s, 2)
			escapee, _ := strconv.Atoi(escRe.FindStringSubmatch(s)[1])
			if how == "keys" {
				tt.keys("C-b", "q")
				tt.waitText("Quit and tear them all down?")
				tt.keys("y")
			} else {
				pid := serverPid(t, tt.dir)
				sig := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT}[how]
				if err := syscall.Kill(pid, sig); err != nil {
					t.Fatal(err)
				}
			}
			s = tt.waitExit()
			// Shells that closed on the quit's hang-up are closed, not killed.
			if !strings.Contains(s, "EXIT=0") || strings.Count(s, ": closed") != 2 || strings.Contains(s, "killed by SIGHUP") {
				t.Errorf("exit screen lacks the summary or exit code:\n%s", s)
			}
			for _, pg := range groups {
				if left := processesInGroup(pg); len(left) > 0 {
					t.Errorf("group %d left processes: %v", pg, left)
				}
			}
			if processAlive(escapee) {
				_ = syscall.Kill(escapee, syscall.SIGKILL) // Best effort: it must not outlive the test.
				t.Errorf("the setsid child %d of a pane survived the quit", escapee)
			}
			tt.checkRestored()
		})
	}
}

// serverPid finds the server that the test's sandmux started.
func serverPid(t *testing.T, dir string) int {
	t.Helper()
	out, err := exec.Command("pgrep", "-f", "serve -S "+serverSocket(dir)).Output()
	if err != nil {
		t.Fatalf("find the server of %s: %v", serverSocket(dir), err)
	}
	pid, err := strconv.Atoi(strings.Fields(string(out))[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// A panic inside the program still restores the outer terminal and tears
// every session down before sandmux exits.
func TestTUIPanicRestoresTerminal(t *testing.T) {
	tt := startTerm(t, 121, 41, "SANDMUX_TEST_PANIC_KEY=f12 "+sandmuxBin+" "+sleepers)
	s := tt.waitFor("a process group", func(s string) bool { return len(pgidRe.FindAllString(s, -1)) == 1 })
	pg := pgids(t, s, 1)[0]
	tt.keys("F12")
	s = tt.waitExit()
	if !strings.Contains(s, "EXIT=1") {
		t.Errorf("sandmux did not report the failure:\n%s", s)
	} else {
		t.Logf("screen after the panic:\n%s", s)
	}
	if left := processesInGroup(pg); len(left) > 0 {
		t.Errorf("after a panic the group still has processes: %v", left)
	}
	tt.checkRestored()
}
