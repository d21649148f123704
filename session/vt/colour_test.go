package vt

import (
	"fmt"
	"testing"
)

// cellAt returns the cell at x, y of the live screen.
func cellAt(s *Screen, x, y int) Cell { return frame(s).Cell(x, y) }

// Bold with a base colour keeps the colour the program asked for: most
// terminals today do not brighten bold, so 1;34 stays palette 4.
func TestContract_E1_BoldKeepsBaseColour(t *testing.T) {
	s, _ := newScreen(t, 10, 2)
	s.Write("\x1b[1;34mD\x1b[0;1;7;32;45mR\x1b[0;1;94mB\x1b[m")
	for _, c := range []struct {
		x      int
		fg, bg Color
		attrs  Attr
	}{
		{0, PaletteColor(4), DefaultColor, AttrBold},
		{1, PaletteColor(2), PaletteColor(5), AttrBold | AttrReverse},
		{2, PaletteColor(12), DefaultColor, AttrBold},
	} {
		got := cellAt(s, c.x, 0)
		if got.FG != c.fg || got.BG != c.bg || got.Attrs != c.attrs {
			t.Errorf("cell %d: fg %#x bg %#x attrs %b, want fg %#x bg %#x attrs %b",
				c.x, got.FG, got.BG, got.Attrs, c.fg, c.bg, c.attrs)
		}
	}
}

// RGB colours come back as written, black and dark blues included (vt10x
// stores them in the palette's number space).
func TestRGBColoursExact(t *testing.T) {
	s, _ := newScreen(t, 10, 2)
	s.Write("\x1b[38;2;0;0;0mK\x1b[38;2;0;0;200;48;2;0;0;5mB\x1b[38:2::0:0:7mC\x1b[m")
	for x, want := range [][2]Color{
		{RGBColor(0, 0, 0), DefaultColor},
		{RGBColor(0, 0, 200), RGBColor(0, 0, 5)},
		{RGBColor(0, 0, 7), RGBColor(0, 0, 5)},
	} {
		if got := cellAt(s, x, 0); got.FG != want[0] || got.BG != want[1] {
			t.Errorf("cell %d: fg %#x bg %#x, want %#x %#x", x, got.FG, got.BG, want[0], want[1])
		}
	}
}

// The pen table forgets pens no cell uses: a child cycling through
// millions of colours cannot grow it past its limit, and the colours on
// screen (the hidden main screen included) survive every sweep.
func TestContract_L2_PenTableBounded(t *testing.T) {
	s, _ := newScreen(t, 8, 3)
	s.Write("\x1b[38;2;1;2;3mK\x1b[m\x1b[?1049h")
	var b []byte
	for i := range 20000 {
		b = fmt.Appendf(b[:0], "\x1b[2;1H\x1b[38;2;%d;%d;%dm\x1b[48;5;%dmx", i>>16, i>>8&255, i&255, i%256)
		s.Write(string(b))
		if got := cellAt(s, 0, 1); got.FG != RGBColor(uint8(i>>16), uint8(i>>8), uint8(i)) || got.BG != PaletteColor(uint8(i%256)) {
			t.Fatalf("after %d pens: cell has fg %#x bg %#x", i, got.FG, got.BG)
		}
	}
	if n := len(s.pens.pens); n > s.pens.limit || n > 2*minPenLimit {
		t.Fatalf("pen table grew to %d entries (limit %d)", n, s.pens.limit)
	}
	s.Write("\x1b[?1049l")
	if got := cellAt(s, 0, 0); got.FG != RGBColor(1, 2, 3) {
		t.Fatalf("the main screen's pen was swept while hidden: fg %#x", got.FG)
	}
}

// The memo in front of the pen table (penTable.recent) forgets what a
// sweep freed: a pen no cell used any more, set again once a sweep freed
// its id, draws in its own colours, not in none. The colours between
// never take the pen's slot in the memo, which would hide a stale one.
func TestPenMemoForgetsSweptPens(t *testing.T) {
	s, _ := newScreen(t, 8, 3)
	const again = "\x1b[38;5;196;48;5;21;1m"
	want := style{fg: PaletteColor(196), bg: PaletteColor(21), attrs: AttrBold}
	s.Write("\x1b[3;1H" + again + "y\x1b[m\x1b[3;1Hz") // memoised, then used by no cell
	slot := recentSlot(&want)
	for i, n := 0, 0; n < 2*minPenLimit; i++ { // past a sweep
		c := style{fg: RGBColor(uint8(i>>16), uint8(i>>8), uint8(i))}
		if recentSlot(&c) == slot {
			continue
		}
		n++
		s.Write(fmt.Sprintf("\x1b[2;1H\x1b[38;2;%d;%d;%dmx", i>>16, i>>8&255, i&255))
	}
	s.Write("\x1b[3;1H" + again + "y")
	if got := cellAt(s, 0, 2); got.style() != want {
		t.Fatalf("the returning pen drew %+v, want %+v", got.style(), want)
	}
}
