package local

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// A running pane holds no thread: its leader's exit is awaited in Go's
// poller, not in a waitid that blocks a thread for as long as the child
// runs (a thread a pane). Its exit is still reaped, with its status.
func TestWaitHoldsNoThread(t *testing.T) {
	const n = 8
	var ps []providers.PTY
	for range n {
		ps = append(ps, open(t, providers.Spec{Command: []string{"sleep", "1000"}}))
	}
	// Each reaper parks in the poller; one in a system call a moment
	// (opening the pidfd) is looked at again, one that stays there
	// holds its thread.
	var states map[string]int
	for deadline := time.Now().Add(30 * time.Second); ; {
		states = reapStates()
		if states["IO wait"] == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reapers by state %v: want all %d waiting in the poller (IO wait), not holding a thread in a system call", states, n)
		}
		time.Sleep(5 * time.Millisecond) // a poll interval: a goroutine's parking has no event
	}
	for _, p := range ps {
		if err := p.Signal(9); err != nil {
			t.Fatal(err)
		}
		st, err := p.Wait(t.Context())
		if err != nil || st.Signal != 9 {
			t.Errorf("Wait = %+v, %v; want death by SIGKILL", st, err)
		}
	}
}

// reapStates counts the goroutines of handle.reap by their state, from
// the header of each one's stack ("goroutine 7 [IO wait]:").
func reapStates() map[string]int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	states := map[string]int{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "local.(*handle).reap(") {
			continue
		}
		head, _, _ := strings.Cut(g, "\n")
		_, st, _ := strings.Cut(head, "[")
		st, _, _ = strings.Cut(st, "]")
		st, _, _ = strings.Cut(st, ",") // "IO wait, 2 minutes"
		states[st]++
	}
	return states
}
