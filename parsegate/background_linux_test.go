package parsegate

import (
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sys/unix"
)

// where is the thread a parse ran on and its nice value.
type where struct{ tid, nice int }

func here(t *testing.T) where {
	t.Helper()
	tid := unix.Gettid()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatalf("getpriority: %v", err)
	}
	return where{tid, 20 - prio}
}

// waiting is how many background workers wait for a slice.
func (g *Gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.idle)
}

// paneTurns is a gate of one turn and a pane's turns at it.
func paneTurns(t *testing.T, focused, echo bool) (*Gate, *Turns) {
	g := New(t.Context(), 1)
	var e, s, f atomic.Bool
	e.Store(echo)
	s.Store(true)
	f.Store(focused)
	return g, g.Turns(&e, &s, &f)
}

// A flood's slice from a pane nobody focuses is parsed on another
// thread, at a nice value backgroundNice above the server's; the
// caller's own thread keeps its priority, and the next such slice goes
// to the same worker, the only one.
func TestBackgroundTurnsParseOnALowerPriorityThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := here(t)
	g, turns := paneTurns(t, false, false)
	var ran []where
	for range 2 {
		turns.RunTurn(func() { ran = append(ran, here(t)) })
	}
	want := min(19, me.nice+backgroundNice)
	if ran[0].tid == me.tid || ran[0].nice != want {
		t.Errorf("parsed on thread %d at nice %d; the caller is %d at nice %d: want another thread at nice %d", ran[0].tid, ran[0].nice, me.tid, me.nice, want)
	}
	if ran[1] != ran[0] {
		t.Errorf("the second slice parsed on %+v, the first on %+v: want the same worker", ran[1], ran[0])
	}
	if now := here(t); now != me {
		t.Errorf("the caller's thread went from %+v to %+v", me, now)
	}
	g.mu.Lock()
	free := g.free
	g.mu.Unlock()
	if idle := g.waiting(); idle != 1 || free != 1 {
		t.Errorf("after two slices: %d workers wait and %d turns are free, want 1 and 1", idle, free)
	}
}

// The pane a client focuses, and one whose echo is awaited, parse on
// the caller's own thread, at its priority.
func TestFocusedAndEchoedPanesParseInPlace(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := here(t)
	for _, c := range []struct {
		name          string
		focused, echo bool
	}{{"focused", true, false}, {"echo awaited", false, true}} {
		g, turns := paneTurns(t, c.focused, c.echo)
		var ran where
		turns.RunTurn(func() { ran = here(t) })
		if ran != me {
			t.Errorf("%s: parsed on %+v, want the caller's %+v", c.name, ran, me)
		}
		if n := g.waiting(); n != 0 {
			t.Errorf("%s: %d background workers started, want none", c.name, n)
		}
	}
}

// A panic in a background parse is raised again on the caller's
// goroutine, with the turn given back; the worker lives on.
func TestBackgroundPanicReachesTheCaller(t *testing.T) {
	g, turns := paneTurns(t, false, false)
	got := func() (r any) {
		defer func() { r = recover() }()
		turns.RunTurn(func() { panic("broken screen") })
		return nil
	}()
	if got != "broken screen" {
		t.Errorf("the caller recovered %v, want the parse's panic", got)
	}
	ok := false
	turns.RunTurn(func() { ok = true })
	g.mu.Lock()
	free := g.free
	g.mu.Unlock()
	if !ok || free != 1 {
		t.Errorf("after the panic: the next slice parsed %v, %d turns free; want true, 1", ok, free)
	}
}

// A worker ends, its thread with it, once it waited backgroundIdle for
// a slice; one that gets a slice before then waits again.
func TestBackgroundWorkersEndWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, turns := paneTurns(t, false, false)
		turns.RunTurn(func() {})
		time.Sleep(backgroundIdle / 2)
		turns.RunTurn(func() {})
		time.Sleep(backgroundIdle * 3 / 4)
		synctest.Wait()
		if n := g.waiting(); n != 1 {
			t.Fatalf("%d workers wait %v after the last slice, want 1", n, backgroundIdle*3/4)
		}
		time.Sleep(backgroundIdle)
		synctest.Wait()
		if n := g.waiting(); n != 0 {
			t.Errorf("%d workers wait %v after the last slice, want none", n, backgroundIdle*7/4)
		}
		// synctest.Test returns only once the worker's goroutine ended.
	})
}
