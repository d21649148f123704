package parsegate

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

type paneFlags struct{ echo, shown, focused atomic.Bool }

// paceAll starts a Pace for each pane and returns how long each took.
func paceAll(g *Gate, panes []*paneFlags, done <-chan struct{}) []time.Duration {
	took := make([]time.Duration, len(panes))
	var wg sync.WaitGroup
	for i, p := range panes {
		t := g.Turns(&p.echo, &p.shown, &p.focused)
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
// began to wait; a pane some client focuses waits less than the others
// on screen, a pane on no screen longer; a pane whose echo is awaited
// does not wait; once nobody waits, no tick is armed.
func TestPacedReadsWakeTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		focused, shown1, shown2, back, echo := &paneFlags{}, &paneFlags{}, &paneFlags{}, &paneFlags{}, &paneFlags{}
		for _, f := range []*paneFlags{focused, shown1, shown2, echo} {
			f.shown.Store(true)
		}
		focused.focused.Store(true)
		echo.echo.Store(true)
		took := paceAll(g, []*paneFlags{focused, shown1, shown2, back, echo}, nil)
		want := []time.Duration{FocusPace, ShownPace, ShownPace, BackPace, 0}
		for i := range want {
			if took[i] != want[i] {
				t.Errorf("pane %d waited %v, want %v", i, took[i], want[i])
			}
		}
		if g.pace.screen.next != [2]chan struct{}{} || g.pace.back.next != [2]chan struct{}{} {
			t.Error("a tick is still armed with nobody waiting")
		}
	})
}

// pollTimes runs turns' PaceWith with a poll that says whether to poll
// again after its nth, and returns when each poll ran.
func pollTimes(turns *Turns, again func(n int) bool) []time.Duration {
	start := time.Now()
	var at []time.Duration
	turns.PaceWith(nil, func() bool {
		at = append(at, time.Since(start))
		return again(len(at))
	})
	return at
}

// A busy pane polled at each tick of its class moves with its class: one
// that lost its client's focus is polled at the next of the glance's
// ticks (every glanceStride-th), and one focused again at the next tick.
func TestABusyPaneFollowsItsClass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		var flags paneFlags
		flags.shown.Store(true)
		flags.focused.Store(true)
		at := pollTimes(g.Turns(&flags.echo, &flags.shown, &flags.focused), func(n int) bool {
			switch n {
			case 2:
				flags.focused.Store(false)
			case 3:
				flags.focused.Store(true)
			}
			return n < 4
		})
		want := []time.Duration{FocusPace, 2 * FocusPace, 4 * FocusPace, 5 * FocusPace}
		if !slices.Equal(at, want) {
			t.Errorf("polled at %v, want %v", at, want)
		}
	})
}

// Hurry ends a paced wait at once (a key was typed into the pane), and
// so does done (the session ends).
func TestHurryEndsAPacedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		var echo, shown, focused atomic.Bool
		turns := g.Turns(&echo, &shown, &focused)
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

// A reader waiting in PaceWith stays parked while the tick runs its poll:
// every pane's poll on the tick's goroutine, one after another, at each
// tick of its class while it says true; the wait ends when it says false,
// at a Hurry or done, and no poll runs after that. Once nobody waits, no
// tick is armed.
func TestPaceWithPollsOnTheTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		var running atomic.Int32 // polls running now: never more than one
		type pane struct {
			flags   paneFlags
			keep    int          // polls that say true before one says false (-1: always true)
			polls   atomic.Int32 // polls run
			waiting atomic.Bool  // the reader is inside PaceWith
			took    time.Duration
			turns   *Turns
		}
		poll := func(p *pane) func() bool {
			return func() bool {
				if running.Add(1) != 1 {
					t.Error("two polls ran at once")
				}
				defer running.Add(-1)
				if !p.waiting.Load() {
					t.Error("a poll ran while its reader was not waiting")
				}
				n := p.polls.Add(1)
				return p.keep < 0 || int(n) <= p.keep
			}
		}
		panes := []*pane{{keep: 2}, {keep: 0}, {keep: -1}}
		for _, p := range panes {
			p.flags.shown.Store(true)
			p.turns = g.Turns(&p.flags.echo, &p.flags.shown, &p.flags.focused)
		}
		var wg sync.WaitGroup
		for _, p := range panes {
			wg.Go(func() {
				start := time.Now()
				p.waiting.Store(true)
				p.turns.PaceWith(nil, poll(p))
				p.waiting.Store(false)
				p.took = time.Since(start)
			})
		}
		time.Sleep(ShownPace + 15*time.Millisecond)
		panes[2].turns.Hurry() // between the first tick and the second
		wg.Wait()
		want := []struct {
			took  time.Duration
			polls int32
		}{{3 * ShownPace, 3}, {ShownPace, 1}, {ShownPace + 15*time.Millisecond, 1}}
		for i, p := range panes {
			if p.took != want[i].took || p.polls.Load() != want[i].polls {
				t.Errorf("pane %d waited %v after %d polls, want %v after %d", i, p.took, p.polls.Load(), want[i].took, want[i].polls)
			}
		}
		time.Sleep(3 * BackPace)
		if n := panes[2].polls.Load(); n != 1 {
			t.Errorf("the hurried pane was polled %d times, want 1: polls ran after its wait ended", n)
		}
		if g.pace.screen.armed || g.pace.back.armed {
			t.Error("a tick is still armed with nobody waiting")
		}
	})
}

// TickEnd is nil while no tick delivers the panes on screen, and while
// one does it is closed once the tick's last poll is done, not before:
// a frame that waits on it shows every pane of the tick.
func TestTickEndWaitsForTheLastPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		if g.TickEnd() != nil {
			t.Fatal("TickEnd with nobody waiting")
		}
		var a, b paneFlags
		a.shown.Store(true)
		b.shown.Store(true)
		ta, tb := g.Turns(&a.echo, &a.shown, &a.focused), g.Turns(&b.echo, &b.shown, &b.focused)
		release := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { ta.PaceWith(nil, func() bool { return false }) })
		wg.Go(func() {
			tb.PaceWith(nil, func() bool {
				<-release // this pane is still parsing
				return false
			})
		})
		time.Sleep(ShownPace)
		synctest.Wait() // the tick is in b's poll
		end := g.TickEnd()
		if end == nil {
			t.Fatal("TickEnd was nil while the tick delivered its panes")
		}
		select {
		case <-end:
			t.Fatal("TickEnd closed before the tick's last poll was done")
		default:
		}
		close(release)
		wg.Wait()
		synctest.Wait()
		select {
		case <-end:
		default:
			t.Fatal("TickEnd not closed once the tick's polls were done")
		}
		if g.TickEnd() != nil {
			t.Error("TickEnd after the tick")
		}
	})
}

// A read that answered a key (its turn taken while the echo was awaited)
// is not paced after, though the echo was drawn meanwhile: the pane's
// child is most often idle again, and a pace would set a tick to read
// nothing. The read after that is paced again, and so is PaceWith's.
func TestNoPaceAfterAnAnsweredRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		var echo, shown, focused atomic.Bool
		shown.Store(true)
		turns := g.Turns(&echo, &shown, &focused)
		for _, with := range []bool{false, true} {
			echo.Store(true)
			turns.Take()
			turns.Give()
			echo.Store(false) // drawn, before the reader paces
			pace := func() time.Duration {
				start := time.Now()
				if with {
					turns.PaceWith(nil, func() bool { return false })
				} else {
					turns.Pace(nil)
				}
				return time.Since(start)
			}
			if took := pace(); took != 0 {
				t.Errorf("PaceWith %v: the pace after an answered read took %v, want none", with, took)
			}
			if took := pace(); took != ShownPace {
				t.Errorf("PaceWith %v: the pace after that took %v, want %v", with, took, ShownPace)
			}
		}
	})
}

// goid is the calling goroutine's number, read from its stack's header.
func goid() string {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	f := strings.Fields(string(b[:n]))
	return f[1] // "goroutine N [running]:"
}

// The ticks of a busy spell run their polls on one goroutine, which
// keeps the stack the polls grew (a new one for each tick grew it from
// the smallest again, copying it frame by frame), and it ends once a
// tick leaves nobody waiting: no ticker runs while nobody waits.
func TestTicksOfASpellShareTheirGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		var flags paneFlags
		flags.shown.Store(true)
		turns := g.Turns(&flags.echo, &flags.shown, &flags.focused)
		var ids []string
		for spell := range 2 {
			polls := 0
			turns.PaceWith(nil, func() bool {
				ids = append(ids, goid())
				polls++
				return polls < 4
			})
			synctest.Wait()
			g.pace.screen.mu.Lock()
			running := g.pace.screen.running
			g.pace.screen.mu.Unlock()
			if running {
				t.Errorf("spell %d: the ticker still runs with nobody waiting", spell)
			}
		}
		if len(ids) != 8 {
			t.Fatalf("%d polls ran, want 8", len(ids))
		}
		for i := 1; i < 4; i++ {
			if ids[i] != ids[0] || ids[4+i] != ids[4] {
				t.Fatalf("the polls of one spell ran on goroutines %v, want one for each spell", ids)
			}
		}
	})
}

// The other panes on screen are polled on the focused pane's ticker, at
// every glanceStride-th of its ticks: each of their ticks is one of the
// focused pane's, on its goroutine, so one frame shows both. A focused
// pane that begins to wait while only the glance waits is polled at the
// next tick, not the glance's.
func TestTheGlanceTicksWithTheFocus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		focused, shown := &paneFlags{}, &paneFlags{}
		focused.shown.Store(true)
		focused.focused.Store(true)
		shown.shown.Store(true)
		type poll struct {
			at time.Duration
			id string
		}
		start := time.Now()
		var mu sync.Mutex
		polls := map[*paneFlags][]poll{}
		var wg sync.WaitGroup
		for _, p := range []*paneFlags{shown, focused} {
			synctest.Wait() // the glance waits first
			turns := g.Turns(&p.echo, &p.shown, &p.focused)
			wg.Go(func() {
				turns.PaceWith(nil, func() bool {
					mu.Lock()
					defer mu.Unlock()
					polls[p] = append(polls[p], poll{time.Since(start), goid()})
					return time.Since(start) < 8*FocusPace
				})
			})
		}
		wg.Wait()
		if n := len(polls[focused]); n != 8 {
			t.Errorf("the focused pane was polled %d times in %v, want 8", n, 8*FocusPace)
		}
		if n := len(polls[shown]); n != 4 {
			t.Errorf("the shown pane was polled %d times in %v, want 4", n, 8*FocusPace)
		}
		for _, s := range polls[shown] {
			if !slices.Contains(polls[focused], s) {
				t.Errorf("the shown pane was polled at %v on goroutine %s, not at one of the focused pane's ticks: %v", s.at, s.id, polls[focused])
			}
		}
	})
}

// While only the glance waits, the ticks between its own, which would
// release nobody, are not taken: its ticker wakes once for each of its
// ticks, not glanceStride times.
func TestTicksThatReleaseNobodyAreSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(t.Context(), 1)
		var flags paneFlags
		flags.shown.Store(true)
		at := pollTimes(g.Turns(&flags.echo, &flags.shown, &flags.focused), func(n int) bool { return n < 4 })
		want := []time.Duration{ShownPace, 2 * ShownPace, 3 * ShownPace, 4 * ShownPace}
		if !slices.Equal(at, want) {
			t.Errorf("the glance was polled at %v, want %v", at, want)
		}
		g.pace.screen.mu.Lock()
		ticked := g.pace.screen.ticked
		g.pace.screen.mu.Unlock()
		if ticked != 4 {
			t.Errorf("the ticker took %d ticks for the glance's 4", ticked)
		}
	})
}
