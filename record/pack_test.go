package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// A full-screen program redrawing keeps a fraction of its output in the
// ring: sealed segments are packed, and a window reaching across them
// still replays to the exact screen, resizes included.
func TestRingPacksSealedSegments(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "session", "vt", "testdata", "replay", "vim.vt"))
	if err != nil {
		t.Fatal(err)
	}
	frame := strings.ToValidUTF8(string(data), "\uFFFD")
	synctest.Test(t, func(t *testing.T) {
		a := vt.New(80, 24)
		defer a.Close()
		ring := NewRing(RingOptions{Every: time.Second}, nil)
		ring.Attach(a)
		defer ring.Close()
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
		var cast bytes.Buffer
		if err := ring.SaveLast(&cast, time.Hour, time.Now()); err != nil {
			t.Fatal(err)
		}
		b, _ := replay(t, cast.Bytes())
		if msg := diff(a, b); msg != "" {
			t.Fatal(msg)
		}
	})
}

// A damaged packed segment is an error, never a panic.
func TestUnpackDamaged(t *testing.T) {
	s := segment{kf: "kf", data: []byte("hello"), events: []event{{at: 5, end: 5, kind: 'o'}}}
	s.pack()
	for _, p := range [][]byte{nil, s.packed[:len(s.packed)/2], packer.EncodeAll([]byte{0x80}, nil), packer.EncodeAll([]byte{2, 9, 1, 'k', 'f'}, nil)} {
		c := segment{packed: p}
		if err := c.unpack(); err == nil {
			t.Errorf("unpack of %x: no error", p)
		}
	}
	c := segment{packed: s.packed}
	if err := c.unpack(); err != nil || c.kf != "kf" || string(c.data) != "hello" || len(c.events) != 1 || c.events[0].end != 5 {
		t.Errorf("unpack: %v %q %q %v", err, c.kf, c.data, c.events)
	}
}

// With the default options a busy screen (20 KB/s in 10 ms slices, as a
// TUI writes) gets a keyframe every 5 s, not more often, so its segments
// are long enough to pack well; a window across them still replays to
// the exact screen.
func TestRingDefaultKeyframeEvery(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "session", "vt", "testdata", "replay", "vim.vt"))
	if err != nil {
		t.Fatal(err)
	}
	stream := strings.ToValidUTF8(string(data), "\uFFFD")
	synctest.Test(t, func(t *testing.T) {
		a := vt.New(80, 24)
		defer a.Close()
		ring := NewRing(RingOptions{}, nil)
		ring.Attach(a)
		defer ring.Close()
		for i := range 1200 { // 12 s
			off := i * 200 % len(stream)
			a.Write(stream[off:min(off+200, len(stream))])
			time.Sleep(10 * time.Millisecond)
		}
		ring.mu.Lock()
		n := len(ring.segs)
		ring.mu.Unlock()
		if n != 3 {
			t.Errorf("12 s of output made %d segments, want 3 (a keyframe at the start, after 5 s and after 10 s)", n)
		}
		var cast bytes.Buffer
		if err := ring.SaveLast(&cast, 7*time.Second, time.Now()); err != nil {
			t.Fatal(err)
		}
		b, _ := replay(t, cast.Bytes())
		if msg := diff(a, b); msg != "" {
			t.Fatal(msg)
		}
	})
}
