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
// It owns only the GC percentage of the process, from Start on; it reads
// the runtime's metrics and knows nothing of rings or panes.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
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
}

// Start sets GOGC to percent now and, after every collection from now on,
// to what gives percent of capBytes as headroom once the heap outgrows it.
func Start(percent int, capBytes uint64) *Pacer {
	p := &Pacer{percent: percent, capBytes: capBytes, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}}
	debug.SetGCPercent(percent)
	p.last.Store(int64(percent))
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
	pct := Percent(p.percent, p.capBytes, live+roots)
	if int64(pct) != p.last.Load() {
		debug.SetGCPercent(pct)
		p.last.Store(int64(pct))
	}
}

// Percent is the GOGC that gives a heap of heap bytes (live, stacks and
// globals, what GOGC is a percentage of) percent of it as headroom up to
// capBytes, and percent of capBytes past it.
func Percent(percent int, capBytes, heap uint64) int {
	if heap <= capBytes {
		return percent
	}
	return max(minPercent, int(uint64(percent)*capBytes/heap))
}
