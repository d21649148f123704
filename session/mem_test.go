package session

import (
	"bytes"
	"context"
	"testing"
)

// The collector counts what its buffers hold: a flood's worth while the
// flood lasts, little once windows are small again.
func TestCollectorMemBytes(t *testing.T) {
	ctx := context.Background()
	c := NewCollector(1 << 20)
	if got := c.MemBytes(); got != 0 {
		t.Fatalf("an unused collector holds %d bytes", got)
	}
	flood := bytes.Repeat([]byte("a"), 200<<10)
	if err := c.Push(ctx, flood); err != nil {
		t.Fatal(err)
	}
	if got := c.MemBytes(); got < int64(len(flood)) {
		t.Errorf("with %d bytes queued the collector counts %d", len(flood), got)
	}
	if text, _, err := c.Collect(ctx, 0); err != nil || len(text) != len(flood) {
		t.Fatalf("collect: %d bytes, %v", len(text), err)
	}
	if got := c.MemBytes(); got < int64(len(flood)) {
		t.Errorf("after a window of %d bytes the collector counts %d; its window keeps them for the next", len(flood), got)
	}
	if err := c.Push(ctx, []byte("quiet")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Collect(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got := c.MemBytes(); got > keepBuffer {
		t.Errorf("after the flood the collector counts %d bytes, more than the %d it keeps", got, keepBuffer)
	}
}

// A session counts its reader's buffer besides the collector's, and its
// input queue once it has one: the queue is made with the writer, at the
// first input the PTY did not take at once.
func TestSessionMemBytes(t *testing.T) {
	s := newSession(1, "x", "fake", newFakePTY(), Options{}, func() {}, func(f func()) { f() })
	defer s.cancelRun()
	if got, want := s.MemBytes(), int64(readBufBytes); got != want {
		t.Errorf("an idle session counts %d bytes, want %d", got, want)
	}
	if s.input != nil {
		t.Errorf("a session never typed into holds an input queue of %d", cap(s.input))
	}
	if err := s.enqueue([]byte("queued")); err != nil {
		t.Fatal(err)
	}
	if got, want := s.MemBytes(), int64(readBufBytes+inputQueueLen*24); got != want {
		t.Errorf("a session with queued input counts %d bytes, want %d", got, want)
	}
	s.closeInput()
	s.pumps.Wait()
}
