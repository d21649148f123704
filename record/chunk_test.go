package record

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// An open segment that output fills slowly is packed a chunk at a time,
// its events with it: it holds a fraction of its output, and unchunked
// (as SaveLast reads it) and sealed it gives back every byte and event as
// they came, a resize between chunks included.
func TestRingChunksOpenSegment(t *testing.T) {
	ring := NewRing(RingOptions{Every: time.Hour}, nil)
	defer ring.Close()
	start := time.Unix(1000, 0)
	ring.Keyframe(start, 80, 24, []byte("\x1b[Hkeyframe"))
	var want []byte
	var events []event
	at := start
	for i := range 2000 { // 20 s at 20 KB/s
		at = at.Add(10 * time.Millisecond)
		if i == 1000 {
			ring.Resize(at, 70, 20)
			events = append(events, event{at: at.UnixNano(), end: len(want), kind: 'r', cols: 70, rows: 20})
			continue
		}
		text := fmt.Sprintf("\x1b[%d;1H\x1b[3%dmrow %d of a redraw, %s\x1b[m", i%24+1, i%8, i, bytes.Repeat([]byte{'x'}, i%150))
		ring.Output(at, text)
		want = append(want, text...)
		events = append(events, event{at: at.UnixNano(), end: len(want), kind: 'o'})
	}
	ring.mu.Lock()
	seg := ring.segs[0]
	held, tail := seg.measure(), cap(seg.data)
	ring.mu.Unlock()
	// The tail is plain and kept for the next chunk; the rest, the
	// chunks and events before it, is what chunking makes small.
	t.Logf("%d bytes of output held in %d: the tail %d, the rest %d", len(want), held, tail, held-tail)
	if len(seg.chunks) < len(want)/chunkBytes-1 || seg.outLen() != len(want) || held-tail > len(want)/5 || tail > 2*chunkBytes {
		t.Fatalf("the open segment holds %d chunks, %d bytes of output in %d bytes, %d of them its tail; want chunks, %d bytes in under a fifth besides a tail of two chunks at most",
			len(seg.chunks), seg.outLen(), held, tail, len(want))
	}
	open := segment{start: seg.start, chunks: seg.chunks, base: seg.base, chunkedAt: seg.chunkedAt, data: seg.data, events: seg.events}
	if err := open.unchunk(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(open.data, want) || !slices.Equal(open.events, events) {
		t.Fatalf("unchunked: %d bytes, %d events; want %d, %d (equal: %v %v)",
			len(open.data), len(open.events), len(want), len(events), bytes.Equal(open.data, want), slices.Equal(open.events, events))
	}
	sealed := segment{start: seg.start, kf: seg.kf, chunks: seg.chunks, base: seg.base, chunkedAt: seg.chunkedAt, data: seg.data, events: seg.events}
	sealed.pack(sealed.codec(DefaultSegmentBytes))
	if sealed.packed[0] != packZstd {
		t.Fatalf("a slow segment packed with %q, want zstd", sealed.packed[0])
	}
	if err := sealed.unpack(); err != nil || sealed.kf != seg.kf || !bytes.Equal(sealed.data, want) || !slices.Equal(sealed.events, events) {
		t.Fatalf("sealed and unpacked: %v, kf %q, %d bytes, %d events", err, sealed.kf, len(sealed.data), len(sealed.events))
	}
}

// A flood is not chunked: it fills its segment in milliseconds, and is
// packed once, with S2, when sealed.
func TestRingDoesNotChunkAFlood(t *testing.T) {
	ring := NewRing(RingOptions{}, nil)
	defer ring.Close()
	at := time.Unix(1000, 0)
	ring.Keyframe(at, 80, 24, []byte("kf"))
	flood := floodText(DefaultSegmentBytes)
	for i := 0; i < len(flood); i += 4 << 10 { // 64 MB/s
		at = at.Add(64 * time.Microsecond)
		ring.Output(at, flood[i:min(i+4<<10, len(flood))])
	}
	ring.mu.Lock()
	seg := ring.segs[0]
	chunks, codec := len(seg.chunks), seg.codec(DefaultSegmentBytes)
	ring.mu.Unlock()
	if chunks != 0 || codec != packS2 {
		t.Fatalf("a flood's segment took %d chunks and codec %q; want none and S2", chunks, codec)
	}
}

// SaveLast reads a window that starts inside a chunked open segment, at
// a chunk's edge or between, and replays it to the exact screen.
func TestSaveLastInChunkedSegment(t *testing.T) {
	stream := vimStream(t)
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{Every: time.Hour})
		pace(a, stream, 0, 900) // 9 s at 20 KB/s
		ring.mu.Lock()
		n, chunks := len(ring.segs), len(ring.segs[0].chunks)
		ring.mu.Unlock()
		if n != 1 || chunks < 3 {
			t.Fatalf("%d segments, the first in %d chunks; want one in several", n, chunks)
		}
		for _, d := range []time.Duration{time.Hour, 8 * time.Second, 4170 * time.Millisecond, 805 * time.Millisecond, 15 * time.Millisecond} {
			if msg := windowDiff(t, ring, a, d); msg != "" {
				t.Fatalf("window %v: %s", d, msg)
			}
		}
	})
}
