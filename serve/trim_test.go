package serve

import (
	"context"
	"errors"
	"io"
	"log"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/attach"
)

// attachFor is an Attacher whose attachments last until release closes.
type attachFor struct{ release <-chan struct{} }

var errEnded = errors.New("ended")

func (a attachFor) Attach(ctx context.Context, _ attach.Stream) error {
	<-a.release
	return errEnded
}

// The server trims once an attachment ran trimAfter, once, and not for
// one that ended before: that one's wait ends with it, and Attach
// returns the attacher's own error either way.
func TestTrimOnAttachWaitsOutTheStart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lasts time.Duration
		trims int
	}{
		{"ended first", trimAfter / 2, 0},
		{"ran on", 3 * trimAfter, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				trims := 0
				release := make(chan struct{})
				tr := trimOnAttach{Attacher: attachFor{release}, trim: func() { trims++ }}
				ended := make(chan error, 1)
				start := time.Now()
				go func() { ended <- tr.Attach(t.Context(), nil) }()
				time.Sleep(tc.lasts) // the bubble's clock: no real wait
				close(release)
				if err := <-ended; !errors.Is(err, errEnded) {
					t.Errorf("Attach = %v, want the attacher's own error", err)
				}
				if waited := time.Since(start); waited != tc.lasts {
					t.Errorf("an attachment of %v returned after %v", tc.lasts, waited)
				}
				if trims != tc.trims {
					t.Errorf("trimmed %d times, want %d", trims, tc.trims)
				}
			})
		})
	}
}

// The server trims once a spell passed with no message, and not while
// messages come; after a trim it waits for the next message without a
// tick (an hour passes untrimmed, the goroutine durably blocked), and
// trims a spell after it.
func TestQuietTrimAfterEachSpell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const after = time.Second
		var trims []time.Duration
		start := time.Now()
		q := newQuietTrim(after, func() { trims = append(trims, time.Since(start)) }, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { q.run(ctx); close(done) }()

		for range 5 { // busy: a message every half spell
			time.Sleep(after / 2)
			q.Touch()
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		// The last message came at 2.5 s; the spells are looked at on
		// whole seconds from the start, so the first quiet one ends at 4 s.
		if want := []time.Duration{4 * after}; !slices.Equal(trims, want) {
			t.Fatalf("trimmed at %v, want %v", trims, want)
		}
		q.Touch()
		time.Sleep(after / 2)
		q.Touch() // a second message in the spell that the first began
		time.Sleep(2 * after)
		synctest.Wait()
		at := time.Since(start) - 2*after - after/2 // when the first came
		if want := []time.Duration{4 * after, at + after + after}; !slices.Equal(trims, want) {
			t.Errorf("trimmed at %v, want %v", trims, want)
		}
		cancel()
		<-done
	})
}

// A message delivered while the trim runs (between the look and the
// parking) is not lost: a spell after the trim, the server trims again
// without waiting for another message.
func TestQuietTrimSeesAMessageDuringTheTrim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const after = time.Second
		var trims atomic.Int32 // the test reads it while no message orders it
		var q *quietTrim
		q = newQuietTrim(after, func() {
			if trims.Add(1) == 1 {
				q.Touch()
			}
		}, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { q.run(ctx); close(done) }()
		time.Sleep(after + after/2)
		synctest.Wait()
		if n := trims.Load(); n != 1 {
			t.Fatalf("trimmed %d times after the first spell, want 1", n)
		}
		time.Sleep(after)
		synctest.Wait()
		if n := trims.Load(); n != 2 {
			t.Errorf("trimmed %d times a spell after a message during the trim, want 2", n)
		}
		cancel()
		<-done
	})
}

// The server's filter counts every message and passes it on, to the
// filter after it when there is one.
func TestQuietTrimFilterTouches(t *testing.T) {
	q := newQuietTrim(time.Second, func() {}, nil)
	type ping struct{}
	if got := q.filter(nil)(nil, ping{}); got != (ping{}) {
		t.Errorf("filter(nil) returned %v, want the message", got)
	}
	next := q.filter(func(tea.Model, tea.Msg) tea.Msg { return nil })
	if got := next(nil, ping{}); got != nil {
		t.Errorf("filter(next) returned %v, want next's nil", got)
	}
	if n := q.seen.Load(); n != 2 {
		t.Errorf("counted %d messages, want 2", n)
	}
}

// garbage holds what TestTrimAfterWorkReturnsTheHeap frees.
var garbage [][]byte

// The trim after a burst of work (an attachment, a quiet spell) returns
// the heap's free pages too: an idle server collects nothing, so what a
// burst freed stayed resident.
func TestTrimAfterWorkReturnsTheHeap(t *testing.T) {
	for range 64 {
		garbage = append(garbage, make([]byte, 128<<10))
	}
	garbage = nil
	runtime.GC() // 8 MiB freed, most of it not yet returned
	// No collection but the trim's own: one started after it (by the
	// page trim's reading of smaps, or another goroutine of the test
	// binary) frees spans the trim can no longer return, and once left
	// 3 MiB free on a loaded machine.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	trimAfterWork(log.New(io.Discard, "", 0))
	free := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(free)
	if n := free[0].Value.Uint64(); n > 1<<20 {
		t.Errorf("the heap kept %d free bytes after the trim, want them returned", n)
	}
}

// While the server stays parked after a quiet trim, each collection (Go
// collects an idle process every two minutes) is followed by a trim of
// the pages it brought back, one after another; a collection's watch
// ends once the server is no longer parked, or parked again since, or
// the run ended.
func TestQuietTrimAfterEachCollectionWhileParked(t *testing.T) {
	retrims := make(chan struct{}, 64)
	q := newQuietTrim(time.Hour, func() {}, func() { retrims <- struct{}{} })
	q.parked.Store(true)
	q.watchGC(q.parks.Add(1))
	for i := range 2 {
		// A collection that began before the cleanup armed the next
		// sentinel misses it: collect until a trim comes, within a bound.
		deadline := time.After(10 * time.Second)
	collect:
		for {
			runtime.GC()
			select {
			case <-retrims:
				break collect
			case <-deadline:
				t.Fatalf("no trim after collection %d while parked", i+1)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	q.parks.Add(1) // ends the chain above at its next collection

	// A watch ends, trimming nothing: each case its own parking, no
	// chain of collections running.
	for _, c := range []struct {
		name  string
		setup func(q *quietTrim) uint64 // the parking the watch is of
	}{
		{"no longer parked", func(q *quietTrim) uint64 { return q.parks.Add(1) }},
		{"parked again since", func(q *quietTrim) uint64 {
			q.parked.Store(true)
			return q.parks.Add(2) - 1
		}},
		{"the run ended", func(q *quietTrim) uint64 {
			q.parked.Store(true)
			park := q.parks.Add(1)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			q.run(ctx)
			return park
		}},
	} {
		trimmed := false
		w := newQuietTrim(time.Hour, func() {}, func() { trimmed = true })
		w.afterGC(c.setup(w))
		if trimmed {
			t.Errorf("%s: a collection's watch trimmed", c.name)
		}
	}
}
