package local

import (
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestWalksAreSharedAndFresh: callers who ask while a walk runs share
// the next walk, not the running one, so each sees every process that
// existed when it asked. The first walk is held at a gate after it read
// /proc; a process starts; then ten callers ask. The eleven callers make
// two walks, and only the first walk misses the process.
func TestWalksAreSharedAndFresh(t *testing.T) {
	var made atomic.Int32
	walked, release := make(chan struct{}), make(chan struct{})
	joined := make(chan struct{}, 10)
	w := &walker{joined: func() { joined <- struct{}{} }}
	w.walk = func() ([]proc, error) {
		procs, err := walkProc()
		if made.Add(1) == 1 {
			close(walked)
			<-release
		}
		return procs, err
	}

	first := make(chan []proc, 1)
	go func() {
		procs, err := w.procs()
		if err != nil {
			t.Errorf("first walk: %v", err)
		}
		first <- procs
	}()
	<-walked

	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	defer func() {
		_ = cmd.Process.Kill() // Best effort: it is waited for next.
		_ = cmd.Wait()
	}()
	pid := cmd.Process.Pid

	const callers = 10
	var wg sync.WaitGroup
	later := make([][]proc, callers)
	for i := range callers {
		wg.Go(func() {
			procs, err := w.procs()
			if err != nil {
				t.Errorf("later walk: %v", err)
			}
			later[i] = procs
		})
	}
	for range callers {
		<-joined
	}
	close(release)
	wg.Wait()

	if has(<-first, pid) {
		t.Errorf("the walk that read /proc before sleep started found it")
	}
	for i, procs := range later {
		if !has(procs, pid) {
			t.Fatalf("caller %d, who asked after sleep (pid %d) started, was given a walk without it", i, pid)
		}
	}
	if n := made.Load(); n != 2 {
		t.Errorf("%d walks for 11 callers, 10 of them asking during the first; want 2", n)
	}
}

func has(procs []proc, pid int) bool {
	return slices.ContainsFunc(procs, func(p proc) bool { return p.pid == pid })
}

// TestMarkersOf: only entries named exactly markerVar mark a pane, each
// kept whole, whatever surrounds them.
func TestMarkersOf(t *testing.T) {
	for _, c := range []struct {
		env  string
		want []string
	}{
		{"", nil},
		{"A=1\x00SANDMUX_PANE_ID=local-1-ab\x00B=2\x00", []string{"SANDMUX_PANE_ID=local-1-ab"}},
		{"SANDMUX_PANE_ID=x", []string{"SANDMUX_PANE_ID=x"}},
		{"SANDMUX_PANE_ID=a\x00SANDMUX_PANE_ID=b", []string{"SANDMUX_PANE_ID=a", "SANDMUX_PANE_ID=b"}},
		{"SANDMUX_PANE_IDX=a\x00XSANDMUX_PANE_ID=b\x00SANDMUX_PANE_ID\x00SANDMUX_PANE=c", nil},
		{"SANDMUX_PANE_ID=\x00", []string{"SANDMUX_PANE_ID="}},
	} {
		if got := markersOf([]byte(c.env)); !slices.Equal(got, c.want) {
			t.Errorf("markersOf(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}
