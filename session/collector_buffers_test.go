package session

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestPushAfterClosePanics(t *testing.T) {
	c := NewCollector(8)
	c.Close()
	defer func() {
		if recover() == nil {
			t.Fatal("Push after Close did not panic")
		}
	}()
	_ = c.Push(t.Context(), []byte("x")) // Best effort: it must panic before returning.
}

// After a flood the collector's buffers shrink back: an idle pane does not
// keep a flood's worth of memory. During the flood they stay as grown.
func TestCollectorShrinksAfterFlood(t *testing.T) {
	c := NewCollector(DefaultQueueBytes)
	ctx := context.Background()
	big := strings.Repeat("x", DefaultQueueBytes/2)
	for range 2 {
		if err := c.Push(ctx, []byte(big)); err != nil {
			t.Fatal(err)
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || len(text) != len(big) {
			t.Fatalf("flood window: %d bytes, %v", len(text), err)
		}
	}
	if cap(c.win) < len(big) {
		t.Fatalf("the window's buffer shrank during the flood (cap %d)", cap(c.win))
	}
	for range 2 { // both buffers, which the windows swap
		if err := c.Push(ctx, []byte("echo\r\n")); err != nil {
			t.Fatal(err)
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || text != "echo\r\n" {
			t.Fatalf("small window: %q, %v", text, err)
		}
	}
	c.mu.Lock()
	q := cap(c.queue)
	c.mu.Unlock()
	if cap(c.win) > keepBuffer || q > keepBuffer || cap(c.scratch) > keepBuffer {
		t.Fatalf("after the flood the buffers keep %d, %d and %d bytes, more than %d", cap(c.win), q, cap(c.scratch), keepBuffer)
	}
}

// A flood whose windows are now large, now small (the consumer catching
// up) does not grow its buffers again from nothing after each small
// window: the buffers a small window lets go are taken up by the next
// large one. Cat of 20 MB through a pane allocated as many bytes in Push
// as it delivered before; the text of each window is all a window
// should allocate, and the queue's growth to keepBuffer.
func TestCollectorFloodReusesBuffers(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection empties the pool
	c := NewCollector(DefaultQueueBytes)
	ctx := context.Background()
	read := bytes.Repeat([]byte("x"), 4<<10)
	const reads, cycles = 32, 40
	cycle := func() {
		for range reads {
			if err := c.Push(ctx, read); err != nil {
				t.Fatal(err)
			}
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || len(text) != reads*len(read) {
			t.Fatalf("flood window: %d bytes, %v", len(text), err)
		}
		if err := c.Push(ctx, []byte("$ ")); err != nil {
			t.Fatal(err)
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || text != "$ " {
			t.Fatalf("small window: %q, %v", text, err)
		}
	}
	cycle() // the first flood grows them
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range cycles {
		cycle()
	}
	runtime.ReadMemStats(&after)
	text := uint64(cycles * reads * len(read))
	// Each flood's text, a queue grown to a read, and the buffers the
	// race detector drops (a quarter of what goes into a sync.Pool):
	// some twice the text with it, 1.2 times without. Growing again
	// from nothing took 4.7 times.
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d floods of %d bytes allocated %.1f times their text", cycles, reads*len(read), float64(got)/float64(text))
	if got > 3*text {
		t.Errorf("%d floods of %d bytes allocated %d bytes, more than three times their text", cycles, reads*len(read), got)
	}
}

// A queue that grows from a read to its bound with no flood's buffer to
// take (the pool empty) doubles: append grows a large slice by a
// quarter, fourteen steps from 8 to 256 KiB, allocating five times what
// the queue came to hold (15 allocations here, 9 doubling).
func TestCollectorQueueGrowsByDoubling(t *testing.T) {
	runtime.GC()
	runtime.GC() // the pool keeps what it holds for two collections
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	c := NewCollector(DefaultQueueBytes)
	read := bytes.Repeat([]byte("x"), 4<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range DefaultQueueBytes / len(read) {
		if err := c.Push(context.Background(), read); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > 12 {
		t.Errorf("a queue grown to %d bytes took %d allocations, more than 12", DefaultQueueBytes, n)
	}
}
