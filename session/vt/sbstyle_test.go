package vt

import (
	"fmt"
	"strings"
	"testing"
)

// The scrollback's lines name their styles in a table that stays bounded
// by what the lines use, however many styles went by, and each line keeps
// its own colours through the table's compactions, a reflow and all.
func TestScrollbackStylesInternedAndBounded(t *testing.T) {
	s, _ := newScreen(t, 20, 3, WithScrollback(50))
	const n = 5000
	var b strings.Builder
	for i := range n {
		// A colour of its own for every line, and a second run in the
		// default colours, through both of the scrollback's paths (a
		// wide rune takes the cells' one).
		wide := ""
		if i%3 == 0 {
			wide = "漢"
		}
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dmline%s\x1b[m %d\r\n", i%251, i/251, 7, wide, i)
		if b.Len() > 4096 {
			s.Write(b.String())
			b.Reset()
		}
		if i == n/2 {
			s.Write(b.String())
			b.Reset()
			s.Resize(30, 3) // a reflow moves the lines into a new scrollback
		}
	}
	s.Write(b.String())
	if got := len(s.sb.styles.list); got > minStyleLimit+8 {
		t.Errorf("the style table holds %d styles after %d lines of their own colours, want at most %d", got, n, minStyleLimit+8)
	}
	s.sb.compact() // as the links' collector does: every line remapped
	for i := range s.sb.len() {
		l := s.sb.line(i)
		cells := make([]Cell, l.width())
		l.cells(s.sb.styles, cells)
		var num int
		if _, err := fmt.Sscanf(strings.TrimLeft(l.text()[strings.LastIndexByte(l.text(), ' ')+1:], " "), "%d", &num); err != nil {
			t.Fatalf("line %d %q: %v", i, l.text(), err)
		}
		want := RGBColor(uint8(num%251), uint8(num/251), 7)
		if cells[0].FG != want || !cells[len(cells)-1].FG.IsDefault() {
			t.Fatalf("line %d %q: colours %v … %v, want %v … the default", i, l.text(), cells[0].FG, cells[len(cells)-1].FG, want)
		}
	}
}
