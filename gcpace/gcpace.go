// Package gcpace sets the server's GC percentage after every collection
// so that the heap may grow by the same number of bytes past what the
// collection left live, however large that is: a headroom in bytes,
// where GOGC is one in proportion to the heap.
//
// How often a server is collected is what it allocates a second over
// its headroom. What it allocates a second is what its panes' output
// makes, which does not grow with the heap: much of a busy server's heap
// is its screens' scrollback and its recording rings' open segments.
// A headroom in proportion gave a small heap little: 16 busy panes keep
// some 3 to 4 MB live, and at a quarter of it as headroom they were
// collected every half second, a tenth of the server's CPU (the idle
// processors' mark workers among it); with 4 MiB, every two seconds or
// so. At a fixed GOGC the headroom also grew with the rings when they
// are kept in the heap ([record] spill = false): 48 busy panes after
// five minutes sat 13 MB above their live heap at GOGC 50. (A headroom
// from the heap the collector scans instead, most of the rings being
// bytes it marks without scanning, set GOGC to its floor and collected
// every 100 ms: a collection's fixed costs, not its scanning, are most
// of it there.)
//
// A flood is the exception: its pane allocates as fast as it parses, and
// a 20 MB cat was collected 24 times in a second, a ninth of the
// server's CPU. A run of collections each close on the one before
// (Boost) doubles the headroom, up to maxBoost times, and one that comes
// long after the one before halves it back. A flood holds some 15 MB
// more while it lasts; 48 busy panes, collected a second or more apart,
// never see it.
//
// It owns only the GC percentage of the process, from Start on; it reads
// the runtime's metrics and knows nothing of rings or panes.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// minPercent bounds GOGC below, for a huge heap: some headroom in
// proportion still, so collections do not come back to back.
const minPercent = 5

// sentinel is what each collection frees, to call the next tune: it
// holds a pointer, so it is not batched with other tiny objects, whose
// block may outlive a collection.
type sentinel struct{ _ *int }

// Pacer keeps the headroom at headroom bytes, until Stop.
type Pacer struct {
	headroom uint64
	// samples are read on the runtime's cleanup goroutine only.
	samples []metrics.Sample
	stopped atomic.Bool
	// last is the GOGC set last, for the tests.
	last atomic.Int64
	// boost multiplies percent while collections come in a burst, run
	// counts the close ones in a row, at is when the last tune ran: the
	// cleanup goroutine's only.
	boost, run int
	at         time.Time
}

// A burst of collections: burstRun in a row, each within burstGap of the
// one before, double the headroom, and so does each one after them, up to
// maxBoost times; one calmGap or more after the one before halves it
// back. A single close pair is no burst: the rings' packing or a client's
// attach brings one now and then to 48 busy panes, collected a second or
// more apart, and doubling their headroom for it only held memory.
const (
	burstGap = 100 * time.Millisecond
	burstRun = 3
	calmGap  = 500 * time.Millisecond
	maxBoost = 4
)

// Boost is the headroom's multiplier, and the run of close collections,
// after one that came gap after the one before, from the multiplier and
// the run before it.
func Boost(boost, run int, gap time.Duration) (int, int) {
	switch {
	case gap < burstGap:
		if run++; run >= burstRun {
			boost = min(boost*2, maxBoost)
		}
		return boost, run
	case gap >= calmGap:
		return max(boost/2, 1), 0
	}
	return boost, 0
}

// Start sets GOGC for a heap not measured yet now and, after every
// collection from now on, to what gives headroom bytes past the heap
// (Percent).
func Start(headroom uint64) *Pacer {
	p := &Pacer{headroom: headroom, boost: 1, at: time.Now(), samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}}
	pct := Percent(headroom, 0)
	debug.SetGCPercent(pct)
	p.last.Store(int64(pct))
	p.arm()
	return p
}

// Stop leaves GOGC as it was last set; the pacer sets it no more.
func (p *Pacer) Stop() { p.stopped.Store(true) }

// Percent is the GOGC the pacer set last.
func (p *Pacer) Percent() int { return int(p.last.Load()) }

// arm registers the next tune on a fresh sentinel, which the next
// collection frees (the runtime then runs the cleanup on its own
// goroutine): the pacer costs nothing while nothing allocates.
func (p *Pacer) arm() {
	if p.stopped.Load() {
		return
	}
	runtime.AddCleanup(new(sentinel), func(p *Pacer) {
		p.tune()
		p.arm()
	}, p)
}

func (p *Pacer) tune() {
	if p.stopped.Load() {
		return
	}
	metrics.Read(p.samples)
	live := p.samples[0].Value.Uint64()
	roots := p.samples[1].Value.Uint64() + p.samples[2].Value.Uint64()
	now := time.Now()
	p.boost, p.run = Boost(p.boost, p.run, now.Sub(p.at))
	p.at = now
	pct := Percent(p.headroom*uint64(p.boost), live+roots)
	if int64(pct) != p.last.Load() {
		debug.SetGCPercent(pct)
		p.last.Store(int64(pct))
	}
}

// Percent is the GOGC that lets a heap of heap bytes (live, stacks and
// globals, what GOGC is a percentage of) grow by headroom bytes before
// the next collection, and at least by minPercent of itself, so that a
// huge heap's collections do not come back to back. heap 0 is a heap not
// measured yet: Go's own pace (100, at least 4 MiB), as a server
// starting up is paced.
func Percent(headroom, heap uint64) int {
	if heap == 0 {
		return 100
	}
	return int(max(minPercent, headroom*100/heap))
}
