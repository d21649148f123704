package vt

import (
	"fmt"
	"strings"
	"testing"
)

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\r\n", i)
	}
	return b.String()
}

func history(s *Screen) []string {
	var f Frame
	s.SnapshotRange(&f, 0, 1<<30)
	return strings.Split(string(RenderText(nil, &f)), "\n")
}

func TestScrollbackLineFeeds(t *testing.T) {
	s, _ := newScreen(t, 10, 5)
	s.Write(seq(500))
	h := history(s)
	if len(h) != 501 || h[0] != "1" || h[499] != "500" || h[500] != "" {
		t.Fatalf("history %d lines: %q ... %q", len(h), h[:3], h[len(h)-3:])
	}
	if n := s.ScrollbackLen(); n != 496 {
		t.Fatalf("scrollback %d", n)
	}
}

func TestScrollbackBounded(t *testing.T) {
	s, _ := newScreen(t, 10, 5, WithScrollback(100))
	s.Write(seq(1000))
	h := history(s)
	if s.ScrollbackLen() != 100 || h[0] != "897" {
		t.Fatalf("len %d first %q", s.ScrollbackLen(), h[0])
	}
}

func TestScrollbackAutowrapAndStyles(t *testing.T) {
	s, _ := newScreen(t, 4, 2)
	s.Write("\x1b[31mabcdef\x1b[m日本x")
	h := history(s)
	if strings.Join(h, "|") != "abcd|ef日|本x" {
		t.Fatalf("history %q", h)
	}
	var f Frame
	s.SnapshotAt(&f, 1)
	if f.First != 0 || f.Cell(0, 0) != (Cell{Rune: 'a', FG: PaletteColor(1)}) {
		t.Fatalf("first %d cell %+v", f.First, f.Cell(0, 0))
	}
	if f.Cursor.Visible {
		t.Fatal("cursor visible while scrolled back")
	}
	if got := string(RenderText(nil, &f)); got != "abcd\nef日" {
		t.Fatalf("scrolled view %q", got)
	}
}

func TestScrollbackOnlyFullScreenMain(t *testing.T) {
	s, _ := newScreen(t, 10, 4)
	s.Write("\x1b[?1049h" + seq(20) + "\x1b[?1049l")
	s.Write("\x1b[2;3r\x1b[3;1H" + seq(20) + "\x1b[r")
	if n := s.ScrollbackLen(); n != 0 {
		t.Fatalf("scrollback %d", n)
	}
	s.Write("\x1b[4;1Hx\x1bDy\x1bEz\x1b[2S")
	if h := history(s); len(h) != 4+4 {
		t.Fatalf("history %q", h)
	}
	s.Write("\x1b[3J")
	if n := s.ScrollbackLen(); n != 0 {
		t.Fatalf("after ED 3: %d", n)
	}
}

func TestScrollbackOnShrink(t *testing.T) {
	s, _ := newScreen(t, 10, 5)
	s.Write("1\r\n2\r\n3\r\n4\r\n5")
	s.Resize(10, 3)
	if got := strings.Join(history(s), "|"); got != "1|2|3|4|5" {
		t.Fatalf("history %q", got)
	}
}

func TestTabsAfterResize(t *testing.T) {
	s, _ := newScreen(t, 20, 3)
	s.Write("ab")
	s.Resize(40, 3)
	s.Write("\r\t\t\t\tX")
	f := frame(s)
	if f.Cell(32, 0).Rune != 'X' {
		t.Fatalf("row %q", lines(s)[0])
	}
	if f.Cursor.X != 33 {
		t.Fatalf("cursor %+v", f.Cursor)
	}
}

func TestResizeKeepsCursor(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("abc\r\nde")
	s.Resize(30, 5)
	s.Write("f")
	if got := lines(s); got[1] != "def" {
		t.Fatalf("rows %q", got)
	}
}

// A region that starts at the top line (a status line below it) still
// feeds the scrollback, as in xterm and tmux.
func TestScrollbackRegionAtTop(t *testing.T) {
	s, _ := newScreen(t, 10, 4)
	s.Write("\x1b[1;3r\x1b[3;1H" + seq(5) + "\x1b[4;1Hstatus")
	if got := strings.Join(history(s), "|"); got != "||1|2|3|4|5||status" {
		t.Fatalf("history %q", got)
	}
}
