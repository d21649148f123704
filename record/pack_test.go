package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A full-screen program redrawing keeps a fraction of its output in the
// ring: sealed segments are packed, and a window reaching across them
// still replays to the exact screen, resizes included.
func TestRingPacksSealedSegments(t *testing.T) {
	frame := vimStream(t)
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{Every: time.Second})
		raw := 0
		for i := range 200 {
			a.Write(frame)
			raw += len(frame)
			if i == 120 {
				a.Resize(70, 20)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got := ring.Bytes(); got > raw/4 {
			t.Errorf("the ring holds %d bytes of %d written; packed, a redrawn screen takes under a quarter", got, raw)
		}
		if msg := windowDiff(t, ring, a, time.Hour); msg != "" {
			t.Fatal(msg)
		}
	})
}

// A segment packed with either codec unpacks to what it was: keyframe,
// output, and events with their times, ends and sizes.
func TestPackRoundTrip(t *testing.T) {
	for _, codec := range []byte{packZstd, packS2} {
		t.Run(codecNames[codec], func(t *testing.T) {
			s := testSegment(5000, 64<<10, 10*time.Millisecond)
			s.events = append(s.events, event{at: s.start + 1e9, end: len(s.data), kind: 'r', cols: 70, rows: 20})
			want := testSegment(5000, 64<<10, 10*time.Millisecond)
			want.events = s.events
			s.pack(codec)
			if !bytes.HasPrefix(s.packed, []byte{codec}) || s.kf != "" || s.data != nil || s.events != nil {
				t.Fatalf("packed %.8x, plain fields left %d %d %d; want tag %q and none",
					s.packed, len(s.kf), len(s.data), len(s.events), codec)
			}
			if n := len(s.packed); n > len(want.data)/2 || cap(s.packed) != n {
				t.Errorf("packed %d bytes (cap %d) of %d; want under half, no slack", n, cap(s.packed), len(want.data))
			}
			c := segment{start: s.start, packed: s.packed}
			if err := c.unpack(); err != nil {
				t.Fatal(err)
			}
			if c.kf != want.kf || !bytes.Equal(c.data, want.data) || !slices.Equal(c.events, want.events) || c.packed != nil {
				t.Fatalf("unpacked kf %q, %d bytes, %d events; want %q, %d, %d",
					c.kf, len(c.data), len(c.events), want.kf, len(want.data), len(want.events))
			}
		})
	}
}

var codecNames = map[byte]string{packZstd: "zstd", packS2: "s2"}

// testSegment is n bytes of coloured log lines (floodText) written in
// 4 KiB slices, one every step, after a keyframe at a fixed time.
func testSegment(start int64, n int, step time.Duration) *segment {
	text := []byte(floodText(n))[:n]
	s := &segment{start: start, cols: 80, rows: 24, kf: "\x1b[H\x1b[2J\x1b[31mkeyframe", data: text}
	at := start
	for end := 0; end < n; {
		end = min(end+4<<10, n)
		at += int64(step)
		s.events = append(s.events, event{at: at, end: end, kind: 'o'})
	}
	return s
}

// A segment that filled the byte bound as a flood is packed with S2; one
// that filled it slowly, or was sealed before it, with zstd.
func TestSegmentCodec(t *testing.T) {
	const bound = DefaultSegmentBytes
	for _, tc := range []struct {
		name string
		seg  *segment
		want byte
	}{
		{"flood: full in 4 ms", testSegment(0, bound, 60*time.Microsecond), packS2},
		{"flood: full in one instant", testSegment(0, bound, 0), packS2},
		{"full just over floodRate", testSegment(0, bound, 950*time.Microsecond), packS2},
		{"full just under floodRate", testSegment(0, bound, time.Millisecond), packZstd},
		{"full at 400 KB/s", testSegment(0, bound, 10*time.Millisecond), packZstd},
		{"full at 20 KB/s", testSegment(0, bound, 200*time.Millisecond), packZstd},
		{"sealed early, fast", testSegment(0, bound/2, 0), packZstd},
		{"no output", &segment{start: 0, kf: "kf"}, packZstd},
	} {
		if got := tc.seg.codec(bound); got != tc.want {
			t.Errorf("%s: codec %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A damaged packed segment, of either codec, is errPacked, never a panic.
func TestUnpackDamaged(t *testing.T) {
	for _, codec := range []byte{packZstd, packS2} {
		s := segment{kf: "kf", data: []byte("hello"), events: []event{{at: 5, end: 5, kind: 'o'}}}
		s.pack(codec)
		flipped := bytes.Clone(s.packed)
		flipped[len(flipped)-3] ^= 0x20 // S2's last event time: it still parses, only the checksum sees it
		for _, p := range [][]byte{nil, {codec}, s.packed[:len(s.packed)/2], s.packed[:len(s.packed)-1], flipped,
			encode(codec, []byte{0x80}), encode(codec, []byte{2, 9, 1, 'k', 'f'}),
			encode(codec, []byte{0, 5, 1, 'h', 'e', 'l', 'l', 'o', 0, 6, 'o'}), // past the output's end
			encode(codec, []byte{0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 'o'}),
			append([]byte{'x'}, s.packed[1:]...)} {
			c := segment{packed: p}
			if err := c.unpack(); !errors.Is(err, errPacked) {
				t.Errorf("%c: unpack of %x: %v, want errPacked", codec, p, err)
			}
		}
		c := segment{packed: s.packed}
		if err := c.unpack(); err != nil || c.kf != "kf" || string(c.data) != "hello" || len(c.events) != 1 || c.events[0].end != 5 {
			t.Errorf("%c: unpack: %v %q %q %v", codec, err, c.kf, c.data, c.events)
		}
	}
}

// An S2 block that claims more than maxUnpacked is refused before its
// bytes are allocated, as the zstd decoder refuses one over its memory.
func TestUnpackS2Bounded(t *testing.T) {
	for _, n := range []uint64{maxUnpacked + 1, 1 << 31} {
		p := binary.AppendUvarint([]byte{packS2, 0, 0, 0, 0}, n)
		p = append(p, make([]byte, 64)...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := (&segment{packed: p}).unpack()
		runtime.ReadMemStats(&after)
		if !errors.Is(err, errPacked) {
			t.Errorf("a block of %d bytes: %v, want errPacked", n, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("a block of %d bytes: %d bytes allocated to refuse it", n, got)
		}
	}
}

// With the default options a busy screen (20 KB/s in 10 ms slices, as a
// TUI writes) gets a keyframe every 5 s, not more often, so its segments
// are long enough to pack well; a window across them still replays to
// the exact screen.
func TestRingDefaultKeyframeEvery(t *testing.T) {
	stream := vimStream(t)
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{})
		pace(a, stream, 0, 2200) // 22 s
		ring.mu.Lock()
		n := len(ring.segs)
		ring.mu.Unlock()
		if n != 3 {
			t.Errorf("22 s of output made %d segments, want 3 (a keyframe at the start, after 10 s and after 20 s)", n)
		}
		if msg := windowDiff(t, ring, a, 14*time.Second); msg != "" {
			t.Fatal(msg)
		}
	})
}

// While Hold says a key's echo is awaited, a keyframe due by time waits
// for the first output after it (the seal's packing stays off the echo's
// path), a window across the longer segment still replays to the exact
// screen, and one due by size is not put off.
func TestRingHoldPutsOffTimedKeyframes(t *testing.T) {
	stream := vimStream(t)
	synctest.Test(t, func(t *testing.T) {
		var held atomic.Bool
		held.Store(true)
		a, ring := tapped(t, 80, 24, RingOptions{Hold: held.Load})
		segs := func() int {
			ring.mu.Lock()
			defer ring.mu.Unlock()
			return len(ring.segs)
		}
		pace(a, stream, 0, 1200) // 12 s, all of it while an echo is awaited
		if n := segs(); n != 1 {
			t.Fatalf("12 s of output while held made %d segments, want 1 (only the first keyframe)", n)
		}
		held.Store(false)
		pace(a, stream, 1200, 1201)
		if n := segs(); n != 2 {
			t.Fatalf("the first output once let go made %d segments, want 2 (the keyframe held back)", n)
		}
		if msg := windowDiff(t, ring, a, 11*time.Second); msg != "" {
			t.Fatal(msg)
		}
		held.Store(true)
		for range 300 { // 300 KB at once: past SegmentBytes, held or not
			a.Write(stream[:min(1000, len(stream))])
		}
		if n := segs(); n < 3 {
			t.Errorf("300 KB while held made %d segments, want a keyframe due by size (3 or more)", n)
		}
	})
}

// A flood through a ring is packed with S2, the slow output after it with
// zstd, a segment filled at 400 KB/s included; windows starting in either
// replay to the exact screen.
func TestRingPacksFloodWithS2(t *testing.T) {
	stream := vimStream(t)
	flood := floodText(1 << 20)
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{})
		start := time.Now()
		for i := 0; i < len(flood); i += 16 << 10 { // 160 MB/s
			a.Write(flood[i:min(i+16<<10, len(flood))])
			time.Sleep(100 * time.Microsecond)
		}
		floods := ring.codecs()
		pace(a, stream, 0, 2200) // 22 s at 20 KB/s, then 2 s at 400 KB/s
		a.Write("\x1b[H\x1b[2J")
		for range 200 {
			a.Write(flood[:4<<10])
			time.Sleep(10 * time.Millisecond)
		}
		all := ring.codecs()
		if len(floods) < 3 || strings.Trim(floods, "s") != "" || !strings.HasPrefix(all, floods) ||
			len(all) < len(floods)+5 || strings.Trim(all[len(floods):], "z") != "" {
			t.Fatalf("sealed segments packed %q after the flood, %q in all; want only S2 (s) for the flood, zstd (z) after", floods, all)
		}
		for _, d := range []time.Duration{time.Hour, time.Since(start) - 3*time.Millisecond, 7 * time.Second, time.Second} {
			if msg := windowDiff(t, ring, a, d); msg != "" {
				t.Fatalf("window %v: %s", d, msg)
			}
		}
	})
}

// codecs returns the codec of each sealed segment, oldest first.
func (r *Ring) codecs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, s := range r.segs[:len(r.segs)-1] {
		if len(s.packed) == 0 {
			b.WriteByte('-')
			continue
		}
		b.WriteByte(s.packed[0])
	}
	return b.String()
}

// FuzzUnpack: whatever a packed segment holds, of either codec, packed
// by encode (varints of any value) or damaged after, unpack gives
// errPacked or events within the output, which pack and unpack again to
// themselves.
func FuzzUnpack(f *testing.F) {
	for _, codec := range []byte{packZstd, packS2} {
		s := testSegment(7, 1<<10, time.Millisecond)
		s.events = append(s.events, event{at: 9e9, end: len(s.data), kind: 'r', cols: 70, rows: 20})
		f.Add(codec, s.marshal(nil, s.data, s.events), false)
		s.pack(codec)
		f.Add(codec, s.packed, true)
	}
	f.Fuzz(func(t *testing.T, codec byte, b []byte, packed bool) {
		if !packed {
			b = encode(codec, b) // zstd for any codec but packS2
		}
		c := segment{start: 7, packed: b}
		if err := c.unpack(); err != nil {
			if !errors.Is(err, errPacked) {
				t.Fatalf("unpack: %v, not errPacked", err)
			}
			return
		}
		prev := 0
		for _, e := range c.events {
			_ = c.data[prev:e.end] // as SaveLast slices it
			prev = e.end
		}
		for _, again := range []byte{packZstd, packS2} {
			d := segment{start: 7, kf: c.kf, data: c.data, events: c.events}
			d.pack(again)
			if err := d.unpack(); err != nil || d.kf != c.kf || !bytes.Equal(d.data, c.data) || !slices.Equal(d.events, c.events) {
				t.Fatalf("%c: repacked: %v, %q %q %v; want %q %q %v", again, err, d.kf, d.data, d.events, c.kf, c.data, c.events)
			}
		}
	})
}
