package local

import (
	"testing"
	"time"
)

// An idle pane's sample reads its CPU alone: the resident set read last
// is kept past rssEvery while the CPU figure has not moved since (no page
// is touched without CPU time), and read again once it moved and the
// read is older than rssEvery.
func TestUsageRSSKeptWhileCPUStill(t *testing.T) {
	var u usageState
	t0 := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
	if _, fresh := u.cachedRSS(t0, 0); fresh {
		t.Fatal("nothing read yet, yet a resident set is kept")
	}
	u.keepRSS(4<<20, t0, time.Second)
	for _, tc := range []struct {
		after time.Duration
		cpu   time.Duration
		fresh bool
	}{
		{rssEvery / 2, 2 * time.Second, true}, // young: kept whatever the CPU did
		{rssEvery, time.Second, true},         // old, the CPU still: kept
		{time.Hour, time.Second, true},
		{rssEvery, time.Second + time.Microsecond, false}, // old, and it ran
	} {
		rss, fresh := u.cachedRSS(t0.Add(tc.after), tc.cpu)
		if fresh != tc.fresh || (fresh && rss != 4<<20) {
			t.Errorf("%v after the read at CPU %v: %d kept %v, want kept %v", tc.after, tc.cpu, rss, fresh, tc.fresh)
		}
	}
	u.keepRSS(0, t0, time.Second)
	if _, fresh := u.cachedRSS(t0.Add(time.Hour), time.Second); fresh {
		t.Error("nothing resident was kept: a pane just started must be read again")
	}
}
