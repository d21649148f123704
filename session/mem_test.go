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

// A session counts its reader's buffer and input queue besides the
// collector's.
func TestSessionMemBytes(t *testing.T) {
	s := newSession(1, "x", "fake", nil, Options{}, func() {}, func(f func()) { f() })
	defer s.cancelRun()
	want := int64(readBufBytes + inputQueueLen*24)
	if got := s.MemBytes(); got != want {
		t.Errorf("an idle session counts %d bytes, want %d", got, want)
	}
}
