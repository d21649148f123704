package gcpace

import (
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPercent(t *testing.T) {
	const headroom = 4 << 20
	for _, tc := range []struct {
		heap uint64
		want int
	}{
		{0, 100},       // nothing measured yet: Go's own pace, 4 MiB
		{1 << 20, 400}, // starting up: collected at 5 MiB
		{4 << 20, 100}, // 16 busy panes: 4 MiB more, as at 48
		{16 << 20, 25}, // rings kept in the heap: still 4 MiB more
		{64 << 20, 6},  // 4 MiB of 64
		{1 << 30, minPercent},
	} {
		if got := Percent(headroom, tc.heap); got != tc.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", headroom, tc.heap, got, tc.want)
		}
	}
}

// held is kept alive across the collections below, as a ring's packed
// output.
var held [][]byte

// After a collection the pacer has lowered GOGC for a heap many times
// its headroom, and it stops setting it once stopped.
func TestPacerFollowsCollections(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	for range 64 {
		held = append(held, make([]byte, 1<<20))
	}
	defer func() { held = nil }()
	p := Start(8 << 20)
	defer p.Stop()
	for deadline := time.Now().Add(30 * time.Second); p.Percent() >= 50; {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d after collections of a live heap of 64 MB with 8 MiB of headroom", p.Percent())
		}
		runtime.GC()                 // the cleanup runs after it, on the runtime's goroutine
		time.Sleep(time.Millisecond) // a poll interval: the cleanup's run has no event
	}
	if got := debug.SetGCPercent(-1); got != p.Percent() {
		t.Errorf("GOGC is %d, the pacer says it set %d", got, p.Percent())
	}
	debug.SetGCPercent(p.Percent())
	p.Stop()
	runtime.GC()
	runtime.GC()
	set := p.Percent()
	debug.SetGCPercent(77)
	runtime.GC()
	runtime.GC()
	if got := debug.SetGCPercent(77); got != 77 || p.Percent() != set {
		t.Errorf("after Stop GOGC was set to %d (pacer %d), want it left at 77", got, p.Percent())
	}
}

// A run of close collections boosts the headroom, one close pair does
// not, and a calm gap brings it back down.
func TestBoost(t *testing.T) {
	near, mid, calm := 20*time.Millisecond, 300*time.Millisecond, time.Second
	boost, run := 1, 0
	var got []int
	for _, gap := range []time.Duration{
		near, mid, // one close pair: no burst
		near, near, near, near, near, // a flood: 2 at the third, then 4
		mid,        // held
		calm, calm, // back down
	} {
		boost, run = Boost(boost, run, gap)
		got = append(got, boost)
	}
	want := []int{1, 1, 1, 1, 2, 4, 4, 4, 2, 1}
	if !slices.Equal(got, want) {
		t.Errorf("boosts %v, want %v", got, want)
	}
}
