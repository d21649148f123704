package parsegate

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// Panes on screen get their turns first, and a pane off screen still
// gets one turn in backTurn while they wait.
func TestParseGateServesShownPanesFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &Gate{free: 1}
		g.acquire(true, nil) // the turn in progress
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		wait := func(name string, shown bool) {
			wake := make(chan struct{}, 1)
			wg.Go(func() {
				g.acquire(shown, wake)
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
		g.release()
		wg.Wait()
		got := strings.Join(order, " ")
		if want := "on1 on2 on3 off1 on4 on5 off2"; got != want {
			t.Errorf("turns went %s, want %s", got, want)
		}
		if g.free != 1 {
			t.Errorf("%d turns free after all released, want 1", g.free)
		}
	})
}

// A key is answered first: a pane whose echo is awaited parses at once,
// though every turn is taken and other panes wait for one; its Give
// hands no turn on, and the turns it did not take stay as they were.
func TestEchoedPaneParsesPastTheGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &Gate{free: 1}
		var echo, shown, focused atomic.Bool
		shown.Store(true)
		busy := g.Turns(new(atomic.Bool), &shown, &focused)
		busy.Take() // a flooding pane's turn in progress
		waiting := g.Turns(new(atomic.Bool), &shown, &focused)
		var woke atomic.Bool
		var wg sync.WaitGroup
		wg.Go(func() { waiting.Take(); woke.Store(true); waiting.Give() })
		synctest.Wait()

		echo.Store(true)
		typed := g.Turns(&echo, &shown, &focused)
		done := make(chan struct{})
		go func() { typed.Take(); typed.Give(); close(done) }()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the pane a key was typed into waited for the flooding pane's turn")
		}
		if woke.Load() {
			t.Fatal("the echoed pane's Give handed a turn it never took to a waiting pane")
		}
		busy.Give()
		wg.Wait()
		if g.free != 1 {
			t.Errorf("%d turns free after all were given back, want 1", g.free)
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
