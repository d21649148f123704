package vt

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// A frame holds a Cell for every cell its pane shows, so a field added
// where alignment pads it costs every pane of every client: Cell packs
// into 40 bytes (it took 48 with Rune before Text).
func TestCellPacksInto40Bytes(t *testing.T) {
	if n := unsafe.Sizeof(Cell{}); n > 40 {
		t.Fatalf("Cell takes %d bytes; order its fields so that it packs into 40", n)
	}
}

// MemBytes counts the grids from the start and grows with the
// scrollback, up to its bound.
func TestMemBytesCountsScrollback(t *testing.T) {
	s := New(80, 24, WithScrollback(500))
	defer s.Close()
	empty := s.MemBytes()
	if empty < 2*80*24*8 {
		t.Fatalf("an empty 80x24 screen counts %d bytes, less than its two grids", empty)
	}
	fill := func(n int) int64 {
		for i := range n {
			s.Write(fmt.Sprintf("\x1b[3%dmline %d of the scrollback, long enough to count\x1b[m\r\n", i%8, i))
		}
		return s.MemBytes()
	}
	some := fill(200)
	if some < empty+200*40 {
		t.Errorf("200 lines in the scrollback add %d bytes; want at least their text", some-empty)
	}
	full := fill(5000)
	if more := fill(5000); more > full+full/10 {
		t.Errorf("a full scrollback grew from %d to %d bytes", full, more)
	}
}

// BenchmarkPaneMemory measures what a busy pane's screen holds at steady
// state, in the live heap after a collection, beside what MemBytes
// reports for it (ctl ls's mem_bytes), and the goroutines it keeps.
// 48 screens of 66x12 (the panes of a 200x50 terminal tiled 7 by 7) each
// take a full-screen program's frames and a log's scrolling lines.
//
//	go test -run '^$' -bench PaneMemory -benchtime 1x ./session/vt
func BenchmarkPaneMemory(b *testing.B) {
	const panes = 48
	for _, sb := range []int{2000, DefaultScrollback} {
		b.Run(fmt.Sprintf("scrollback%d", sb), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			frames, log := tuiFrames(rng, 40), simpleText(rng, 3*sb, 60)
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				g := runtime.NumGoroutine()
				screens := make([]*Screen, panes)
				for i := range screens {
					screens[i] = New(66, 12, WithScrollback(sb))
					screens[i].Write(log)
					screens[i].Write(frames)
					// The log came in one write, a burst: its pane's
					// session ends it once output pauses (BurstQuiet).
					screens[i].EndBurst()
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				var counted int64
				for _, s := range screens {
					counted += s.MemBytes()
				}
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/panes, "heap-B/pane")
				b.ReportMetric(float64(counted)/panes, "mem_bytes/pane")
				b.ReportMetric(float64(runtime.NumGoroutine()-g)/panes, "goroutines/pane")
				for _, s := range screens {
					s.Close()
				}
			}
		})
	}
}
