package parsegate

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

type paneFlags struct{ echo, shown atomic.Bool }

// paceAll starts a Pace for each pane and returns how long each took.
func paceAll(g *Gate, panes []*paneFlags, done <-chan struct{}) []time.Duration {
	took := make([]time.Duration, len(panes))
	var wg sync.WaitGroup
	for i, p := range panes {
		t := g.Turns(&p.echo, &p.shown)
		wg.Go(func() {
			start := time.Now()
			t.Pace(done)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	return took
}

// Paced readers of a class wake on one tick, a period after the first
// began to wait; a pane on no screen waits longer; a pane whose echo is
// awaited does not wait; once nobody waits, no tick is armed.
func TestPacedReadsWakeTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(1)
		shown1, shown2, back, echo := &paneFlags{}, &paneFlags{}, &paneFlags{}, &paneFlags{}
		shown1.shown.Store(true)
		shown2.shown.Store(true)
		echo.shown.Store(true)
		echo.echo.Store(true)
		took := paceAll(g, []*paneFlags{shown1, shown2, back, echo}, nil)
		want := []time.Duration{ShownPace, ShownPace, BackPace, 0}
		for i := range want {
			if took[i] != want[i] {
				t.Errorf("pane %d waited %v, want %v", i, took[i], want[i])
			}
		}
		if g.pace.shown.next != nil || g.pace.back.next != nil {
			t.Error("a tick is still armed with nobody waiting")
		}
	})
}

// Hurry ends a paced wait at once (a key was typed into the pane), and
// so does done (the session ends).
func TestHurryEndsAPacedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(1)
		var echo, shown atomic.Bool
		turns := g.Turns(&echo, &shown)
		start := time.Now()
		go func() {
			time.Sleep(time.Millisecond)
			turns.Hurry()
		}()
		turns.Pace(nil)
		if took := time.Since(start); took != time.Millisecond {
			t.Errorf("a hurried wait took %v, want 1ms", took)
		}
		done := make(chan struct{})
		close(done)
		start = time.Now()
		turns.Pace(done)
		if took := time.Since(start); took != 0 {
			t.Errorf("a wait with done closed took %v, want none", took)
		}
		time.Sleep(BackPace) // the tick armed by the last wait fires
	})
}
