package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// A settled client that handed its terminal over collects only once it
// grew, not on the runtime's two-minute timer, whose collections brought
// back the pages it let go of: GOGC off, a memory limit set past what it
// holds. One that relays its terminal's frames keeps Go's pacing.
func TestSettleClientCollectsOnlyWhenGrown(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)

	settleClient(false)
	if pct := debug.SetGCPercent(100); pct != 100 {
		t.Errorf("GOGC is %d after a relaying client settled, want it kept (100)", pct)
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Errorf("a relaying client's memory limit is %d after settling, want none", limit)
	}

	settleClient(true)
	if pct := debug.SetGCPercent(100); pct != -1 {
		t.Errorf("GOGC is %d after settling, want off", pct)
	}
	if limit := debug.SetMemoryLimit(-1); limit == math.MaxInt64 || limit < clientGrowth {
		t.Errorf("the memory limit is %d after settling, want what the client holds and %d more", limit, clientGrowth)
	}
}
