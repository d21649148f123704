package vt

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every slice is valid UTF-8, within the bound, and ends after a line
// when the slice's second half has one.
func TestSliceEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := simpleText(rng, 4000, 100) + strings.Repeat("日本語🎉", 20000)
	for rest := text; len(rest) > 0; {
		n := SliceEnd(rest, writeSlice)
		if n <= 0 || n > writeSlice || !utf8.ValidString(rest[:n]) {
			t.Fatalf("slice of %d bytes (bound %d), valid UTF-8 %v", n, writeSlice, utf8.ValidString(rest[:n]))
		}
		if n < len(rest) && strings.Contains(rest[writeSlice/2:writeSlice], "\n") && rest[n-1] != '\n' {
			t.Fatalf("slice ends mid-line with a line end in its second half")
		}
		rest = rest[n:]
	}
}

// A Write of much more than a slice leaves exactly the screen and
// scrollback that parsing it under one hold of the lock leaves.
func TestWriteInSlicesMatchesOneHold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < 8*writeSlice {
		b.WriteString(simpleText(rng, 50, 60))
		b.WriteString("\x1b[2J\x1b[H\x1b]0;title\x07\x1b[?1049h alt \x1b[?1049l\x1b[5;10r\x1b[3S\x1b[r")
		b.WriteString(strings.Repeat("x", rng.IntN(3*writeSlice))) // a line longer than a slice
	}
	text := b.String()
	sliced, whole := New(60, 20, WithScrollback(100000)), New(60, 20, WithScrollback(100000))
	defer sliced.Close()
	defer whole.Close()
	sliced.Write(text)
	whole.mu.Lock()
	whole.writeText(text)
	whole.flush()
	whole.mu.Unlock()
	total := whole.ScrollbackLen() + 20
	if got := sliced.ScrollbackLen() + 20; got != total {
		t.Fatalf("scrollback %d lines in slices, %d in one hold", got-20, total-20)
	}
	var sf, wf Frame
	sliced.SnapshotRange(&sf, 0, total)
	whole.SnapshotRange(&wf, 0, total)
	for y := range total {
		if !reflect.DeepEqual(sf.Row(y), wf.Row(y)) {
			t.Fatalf("line %d differs:\nslices: %q\nwhole:  %q", y, RenderRowText(nil, &sf, y), RenderRowText(nil, &wf, y))
		}
	}
	if sf.Cursor != wf.Cursor || sliced.Title() != whole.Title() {
		t.Fatalf("cursor %+v / %+v, title %q / %q", sf.Cursor, wf.Cursor, sliced.Title(), whole.Title())
	}
}

// While a huge Write is being parsed, another goroutine gets the lock: the
// first slice's dirty signal comes before the Write ends, and a Snapshot
// taken then does not yet see the text's last line.
func TestWriteReleasesLockBetweenSlices(t *testing.T) {
	s := New(80, 24)
	defer s.Close()
	var b strings.Builder
	for b.Len() < 40*writeSlice {
		b.WriteString("\x1b[1;31mred\x1b[0m text that is not simple enough for bulk: \x1b[K\x1b[2C.\r\n")
	}
	b.WriteString("THE-END")
	written := make(chan struct{})
	go func() {
		defer close(written)
		s.Write(b.String())
	}()
	<-s.Dirty()
	var f Frame
	s.Snapshot(&f)
	<-written
	if strings.Contains(string(RenderRowText(nil, &f, f.Cursor.Y)), "THE-END") {
		t.Fatal("the Snapshot waited for the whole Write: the lock was held throughout")
	}
}
