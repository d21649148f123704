package vt

import (
	"strings"
	"testing"
)

// Growing the pane pulls lines back from the scrollback so the bottom
// stays put, as tmux does; shrinking and growing again gives the same
// screen, styles and clusters included.
func TestGrowPullsScrollback(t *testing.T) {
	s, _ := newScreen(t, 10, 4)
	s.Write("1\r\n\x1b[31m2\x1b[m\r\n3e\u0301\r\n4日\r\n5\r\n6\r\n7\r\n8")
	want := func(screen string, sb, cy int) {
		t.Helper()
		if got := text(s); got != screen {
			t.Fatalf("screen %q, want %q", got, screen)
		}
		if n := s.ScrollbackLen(); n != sb {
			t.Fatalf("scrollback has %d lines, want %d", n, sb)
		}
		if f := frame(s); f.Cursor.Y != cy || f.Cursor.X != 1 {
			t.Fatalf("cursor at %d,%d, want 1,%d", f.Cursor.X, f.Cursor.Y, cy)
		}
	}
	want("5\n6\n7\n8", 4, 3)
	s.Resize(10, 7)
	want("2\n3e\u0301\n4日\n5\n6\n7\n8", 1, 6)
	if c := frame(s).Cell(0, 0); c.FG != PaletteColor(1) {
		t.Fatalf("pulled-back line lost its colour: %+v", c)
	}
	s.Resize(10, 2)
	want("7\n8", 6, 1)
	s.Resize(10, 9)
	want("1\n2\n3e\u0301\n4日\n5\n6\n7\n8\n", 0, 7) // nothing left to pull: a blank row below
	s.Write("\r\nnext")
	if got := lines(s); strings.Join(got, ",") != "1,2,3e\u0301,4日,5,6,7,8,next" {
		t.Fatalf("after growing: %q", got)
	}
}

// The alternate screen has no scrollback: growing it pulls nothing.
func TestGrowAltScreenPullsNothing(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("1\r\n2\r\n3\r\n4\x1b[?1049hA")
	s.Resize(10, 5)
	if got := text(s); got != "\n\n A\n\n" || s.ScrollbackLen() != 1 {
		t.Fatalf("screen %q, scrollback %d", got, s.ScrollbackLen())
	}
	s.Write("\x1b[?1049l")
	if got := text(s); got != "2\n3\n4\n\n" {
		t.Fatalf("main screen after the alternate one: %q", got)
	}
}
