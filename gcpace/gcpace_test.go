package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPercent(t *testing.T) {
	const limit = 12 << 20
	for _, tc := range []struct {
		heap uint64
		want int
	}{
		{0, 50},        // nothing measured yet
		{11 << 20, 50}, // 48 busy panes before their rings fill
		{limit, 50},    // at the cap
		{24 << 20, 25}, // their rings full: the same 6 MiB of headroom
		{48 << 20, 12}, // twice that
		{1 << 30, minPercent},
	} {
		if got := Percent(50, limit, tc.heap); got != tc.want {
			t.Errorf("Percent(50, %d, %d) = %d, want %d", limit, tc.heap, got, tc.want)
		}
	}
}

// held is kept alive across the collections below, as a ring's packed
// output.
var held [][]byte

// After a collection the pacer has lowered GOGC for a heap past its cap,
// and it stops setting it once stopped.
func TestPacerFollowsCollections(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	for range 64 {
		held = append(held, make([]byte, 1<<20))
	}
	defer func() { held = nil }()
	p := Start(50, 16<<20)
	defer p.Stop()
	for deadline := time.Now().Add(30 * time.Second); p.Percent() >= 50; {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d after collections of a live heap of 64 MB, past a cap of 16", p.Percent())
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
