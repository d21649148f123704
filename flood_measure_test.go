package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMeasureFlood measures how sandmux answers while every pane floods:
// N panes of `base64 /dev/urandom` in a 121×41 tmux (N = 0: one idle
// pane, the baseline of the machine and tmux), the time from
// prefix ? to the help on screen, sandmux's RSS, and the time from the
// confirmed quit to the exit. It is a measurement, not a check (no timing
// can fail it), so it runs only when asked:
//
//	SANDMUX_FLOOD=100,200 go test -run TestMeasureFlood -timeout 30m -v .
//
// The binary is built without -race, as users run it; SANDMUX_FLOOD_BIN
// measures another build instead.
func TestMeasureFlood(t *testing.T) {
	spec := os.Getenv("SANDMUX_FLOOD")
	if spec == "" {
		t.Skip("a measurement: set SANDMUX_FLOOD=100,200 (pane counts) to run it")
	}
	need(t, "tmux", "base64")
	bin := os.Getenv("SANDMUX_FLOOD_BIN") // another build, to compare
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "sandmux")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("build: %v: %s", err, out)
		}
	}
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			t.Fatalf("SANDMUX_FLOOD: %q is not a pane count", f)
		}
		t.Run(fmt.Sprint(n), func(t *testing.T) { measureFlood(t, bin, n) })
	}
}

func measureFlood(t *testing.T, bin string, n int) {
	// 0 panes flooding is the baseline: one idle pane, the same machine.
	cmd := bin + strings.Repeat(" 'base64 /dev/urandom'", n)
	if n == 0 {
		cmd = bin + " 'exec cat'"
	}
	tt := startTerm(t, 121, 41, cmd)
	tt.waitText(" sandmux ")
	pid := pidOf(t, tt, bin)
	// The flood settles: every pane started, scrollbacks filling.
	time.Sleep(20 * time.Second)

	var lat []time.Duration
	for range 5 {
		start := time.Now()
		tt.keys("C-b", "?")
		tt.pollFor("help", func(s string) bool { return strings.Contains(s, "show or hide this help") })
		lat = append(lat, time.Since(start))
		tt.keys("Escape")
		tt.pollFor("help gone", func(s string) bool { return !strings.Contains(s, "show or hide this help") })
	}
	slices.Sort(lat)
	rss := rssKiB(t, pid)

	tt.keys("C-b", "q")
	tt.pollFor("quit question", func(s string) bool { return strings.Contains(s, "Quit and tear them all down?") })
	start := time.Now()
	tt.keys("y")
	deadline := start.Add(2 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(tt.dir, tt.sock, "done")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sandmux did not exit; screen:\n%s", tt.screen())
		}
		time.Sleep(5 * time.Millisecond) // polling a file: no event to wait on
	}
	quit := time.Since(start)
	t.Logf("FLOOD panes=%d help: min %v median %v max %v; rss %d MiB; quit %v (load %s)",
		n, lat[0].Round(time.Millisecond), lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond),
		rss/1024, quit.Round(time.Millisecond), loadAvg())
}

// pollFor is waitFor polling as fast as tmux answers, for measuring.
func (tt *tmuxTerm) pollFor(what string, ok func(string) bool) {
	tt.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ok(tt.screen()) {
			return
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out waiting for %s; screen:\n%s", what, tt.screen())
		}
	}
}

func pidOf(t *testing.T, tt *tmuxTerm, bin string) int {
	t.Helper()
	out, err := exec.Command("pgrep", "-P", tt.format("#{pane_pid}"), "-f", bin).Output()
	if err != nil {
		t.Fatalf("find sandmux: %v", err)
	}
	pid, err := strconv.Atoi(strings.Fields(string(out))[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	out, err := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	kib, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return kib
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
