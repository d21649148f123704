package vt

import (
	"fmt"
	"strings"
	"testing"
)

// IND at the bottom brings in a line blank in the background only, as
// LF does; vt10x would blank it with the whole pen.
func TestIndexScrollsInBackgroundOnly(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("\x1b[4mabc\x1bD\x1bD\x1bD\x1bD")
	if c := frame(s).Cell(0, 2); c.Attrs != 0 {
		t.Fatalf("new line's cell %+v, want a plain blank", c)
	}
}

// DECRC restores origin mode with the cursor (xterm, vt10x), and cursor
// moves after it follow the restored mode.
func TestRestoreCursorRestoresOrigin(t *testing.T) {
	s, _ := newScreen(t, 10, 6)
	// Row 4 of the screen, not of the region: the line feed after it
	// does not scroll, so nothing erases "keep" below.
	s.Write("\x1b[5;1Hkeep\x1b[H\x1b7\x1b[3;5r\x1b[?6h\x1b8\x1b[41m\x1b[4;1H\n")
	if got := lines(s); len(got) < 5 || got[4] != "keep" {
		t.Fatalf("screen %q: want keep on row 5", got)
	}
}

// A redundant ?1049h leaves the main screen's pens pinned, so churning
// through pens in the alternate screen cannot recolour it.
func TestRedundantAltEntryKeepsMainPens(t *testing.T) {
	s, _ := newScreen(t, 20, 4)
	s.Write("\x1b[38;2;1;2;3mmain\x1b[m\x1b[?1049h\x1b[?1049h")
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "\x1b[H\x1b[38;2;%d;%d;9mx", i%256, i/256)
	}
	s.Write(b.String())
	s.Write("\x1b[?1049l")
	if c := frame(s).Cell(0, 0); c.FG != RGBColor(1, 2, 3) {
		t.Fatalf("main screen's cell %+v, want its colour back", c)
	}
}
