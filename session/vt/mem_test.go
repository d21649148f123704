package vt

import (
	"fmt"
	"testing"
)

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
