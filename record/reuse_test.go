package record

import (
	"strings"
	"testing"
	"time"
	"unsafe"
)

// flood writes text to ring as a screen tapped at 64 MB/s would, in
// windows of 16 KiB, taking a keyframe whenever the ring wants one, and
// returns the time after the last window.
func flood(ring *Ring, at time.Time, text string) time.Time {
	for i := 0; i < len(text); i += 16 << 10 {
		if ring.WantKeyframe() {
			ring.Keyframe(at, 80, 24, []byte("kf"))
		}
		at = at.Add(250 * time.Microsecond)
		ring.Output(at, text[i:min(i+16<<10, len(text))])
	}
	return at
}

// openTail is the open segment's tail and how many segments there are.
func (r *Ring) openTail() (*byte, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return unsafe.SliceData(r.segs[len(r.segs)-1].data), len(r.segs)
}

// A flood seals a segment every few milliseconds. Each took a fresh tail
// of a segment's size, which its last window then grew by a quarter
// again (an allocs profile of cat of 20 MB: 200 of 629 MB). The tail a
// sealed segment packed is now the next one's, which it does not outgrow.
func TestRingFloodReusesSegmentTails(t *testing.T) {
	ring := NewRing(RingOptions{RetainBytes: 1 << 30}, nil)
	defer ring.Close()
	text := floodText(4 << 20)
	at := flood(ring, time.Unix(1000, 0), text[:1<<20])
	tail, n := ring.openTail()
	for i := 0; i < 3<<20; i += 16 << 10 {
		at = flood(ring, at, text[1<<20+i:1<<20+i+16<<10])
		next, m := ring.openTail()
		if m == n && next != tail {
			t.Fatalf("segment %d grew its tail: a sealed flood's was too small", n)
		}
		if m != n && next != tail {
			t.Fatalf("segment %d took a new tail, not the flood's sealed one", m)
		}
		n = m
	}
	if n < 12 {
		t.Fatalf("3 MiB of flood sealed %d segments; the test shows nothing", n)
	}
}

// A snapshot (SaveLast's, read off the ring's lock) holds an open
// segment's tail: once that segment is packed, its tail goes to no other.
func TestRingSnapshotTailNotReused(t *testing.T) {
	ring := NewRing(RingOptions{RetainBytes: 1 << 30}, nil)
	defer ring.Close()
	text := floodText(4 << 20)
	at := flood(ring, time.Unix(1000, 0), text[:1<<20])
	at = flood(ring, at, text[1<<20:1<<20+100<<10]) // into the open segment
	snap, _ := ring.snapshot()
	open := &snap[len(snap)-1]
	if len(open.data) == 0 {
		t.Fatal("the open segment holds no tail; the test shows nothing")
	}
	want := string(open.data)
	flood(ring, at, text[1<<20+100<<10:]) // seals it, and many after
	if string(open.data) != want {
		t.Fatal("a snapshot's tail changed after its segment was packed: it was reused")
	}
}

// A busy pane's open segment packs its tail a chunk at a time. A tail
// started anew after each chunk grew back to a chunk a quarter at a
// time, allocating five times what it held: 40% of what the server
// allocated with 16 panes of vim. Unless a snapshot holds it, the tail
// packed is the tail that goes on.
func TestRingChunkKeepsTail(t *testing.T) {
	ring := NewRing(RingOptions{Every: time.Hour}, nil)
	defer ring.Close()
	at := time.Unix(1000, 0)
	ring.Keyframe(at, 80, 24, []byte("kf"))
	chunks := func() int {
		ring.mu.Lock()
		defer ring.mu.Unlock()
		return len(ring.segs[0].chunks)
	}
	write := func() { // 20 KB/s
		at = at.Add(10 * time.Millisecond)
		ring.Output(at, "\x1b[H\x1b[32mrow of a redraw that a TUI writes again and again, 200 bytes of it"+strings.Repeat(".", 126))
	}
	for chunks() == 0 {
		write()
	}
	tail, _ := ring.openTail()
	for chunks() < 4 {
		write()
		if next, _ := ring.openTail(); next != tail {
			t.Fatalf("after %d chunks the tail is a new array", chunks())
		}
	}
	ring.snapshot()
	for n := chunks(); chunks() == n; {
		write()
	}
	if next, _ := ring.openTail(); next == tail {
		t.Fatal("a tail a snapshot holds was packed and written again")
	}
}
