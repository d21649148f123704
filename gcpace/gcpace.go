// Package gcpace sets the server's GC percentage after every collection
// so that its heap's headroom stops growing once the live heap passes a
// size: GOGC's percentage of the live heap up to it, that much of it past.
//
// Most of a busy server's heap is its recording rings' packed output,
// which grows for the rings' five minutes while what the server
// allocates a second does not. At a fixed GOGC the headroom grows with
// the rings: 48 busy panes after five minutes sat 13 MB above their live
// heap at GOGC 50, where the 6 MB they had before the rings filled keeps
// collections as frequent as they were then. (A headroom from the heap
// the collector scans instead, most of the rings being bytes it marks
// without scanning, set GOGC to its floor and collected every 100 ms: a
// collection's fixed costs, not its scanning, are most of it there.)
//
// A flood is the exception: its pane allocates as fast as it parses, and
// at that headroom a 20 MB cat was collected 24 times in a second, a
// ninth of the server's CPU. A run of collections each close on the one
// before (Boost) doubles the headroom, up to maxBoost times, and one that
// comes long after the one before halves it back. A flood holds some
// 15 MB more while it lasts; 48 busy panes, collected a second or more
// apart, never see it.
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

// Pacer keeps the headroom at percent of the heap, up to percent of
// capBytes, until Stop.
type Pacer struct {
	percent  int
	capBytes uint64
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
// collection from now on, to what gives percent of capBytes as headroom
// once the heap outgrows it (Percent).
func Start(percent int, capBytes uint64) *Pacer {
	p := &Pacer{percent: percent, capBytes: capBytes, boost: 1, at: time.Now(), samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}}
	pct := Percent(percent, capBytes, 0)
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
	pct := Percent(p.percent*p.boost, p.capBytes, live+roots)
	if int64(pct) != p.last.Load() {
		debug.SetGCPercent(pct)
		p.last.Store(int64(pct))
	}
}

// minHeap is Go's own least heap goal at its default GOGC of 100: a
// smaller heap is collected when it reaches this, whatever it holds.
const minHeap = 4 << 20

// Percent is the GOGC that gives a heap of heap bytes (live, stacks and
// globals, what GOGC is a percentage of) percent of it as headroom up to
// capBytes, and percent of capBytes past it. A heap that would be
// collected before minHeap at percent is paced as Go paces it by default
// (100: at minHeap, or twice the heap) instead: below 100, Go lowers its
// least goal in proportion (2 MiB at 50), and a server starting up, its
// heap a megabyte or two, collected four times in its first 60 ms for
// nothing. heap 0 is a heap not measured yet.
func Percent(percent int, capBytes, heap uint64) int {
	if heap*uint64(100+percent)/100 < minHeap {
		return max(percent, 100)
	}
	if heap <= capBytes {
		return percent
	}
	return max(minPercent, int(uint64(percent)*capBytes/heap))
}
