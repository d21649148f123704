package parsegate

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// A pane whose echo is awaited gets its turn before all others; panes on
// screen get theirs next, and a pane off screen still gets one turn in
// backTurn while they wait.
func TestParseGateServesShownPanesFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &Gate{free: 1}
		g.acquire(false, true, nil) // the turn in progress
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		wait := func(name string, shown bool) {
			wake := make(chan struct{}, 1)
			wg.Go(func() {
				g.acquire(strings.HasPrefix(name, "echo"), shown, wake)
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				g.release()
			})
			synctest.Wait() // queued in this order
		}
		wait("off1", false)
		for _, n := range []string{"on1", "on2", "on3", "on4", "on5"} {
			wait(n, true)
		}
		wait("off2", false)
		wait("echo", true) // a key was typed into it: it goes first
		g.release()
		wg.Wait()
		got := strings.Join(order, " ")
		if want := "echo on1 on2 off1 on3 on4 on5 off2"; got != want {
			t.Errorf("turns went %s, want %s", got, want)
		}
		if g.free != 1 {
			t.Errorf("%d turns free after all released, want 1", g.free)
		}
	})
}

// A pane's turns are the gate's: shown panes wait among the front, and
// every turn taken is given back.
func TestPaneTurnsUseTheGate(t *testing.T) {
	var echo, shown, focused atomic.Bool
	shown.Store(true)
	g := &Gate{free: 1}
	turns := g.Turns(&echo, &shown, &focused)
	turns.Take()
	if g.free != 0 {
		t.Fatalf("a turn taken left %d free", g.free)
	}
	turns.Give()
	if g.free != 1 {
		t.Fatalf("a turn given back left %d free, want 1", g.free)
	}
}
