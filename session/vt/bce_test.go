package vt

import "testing"

// A line scrolled in while a background colour is set takes that colour,
// as in xterm and tmux (background colour erase), whatever scrolls it in:
// LF, IND, NEL, auto-wrap, SU, and the bulk path.
func TestScrollFillsBackground(t *testing.T) {
	for _, c := range []struct {
		name, in string
		bulk     bool
	}{
		{"LF", "\x1b[3;1H\x1b[44m\n", false},
		{"IND", "\x1b[3;1H\x1b[44m\x1bD", false},
		{"NEL", "\x1b[3;1H\x1b[44m\x1bE", false},
		{"SU", "\x1b[44m\x1b[S", false},
		{"autowrap", "\x1b[3;1H\x1b[44mxxxxx\x1b[4mx", false},
		{"region", "\x1b[1;3r\x1b[3;1H\x1b[44m\n\x1b[r", false},
		{"bulk", "\x1b[3;1H\x1b[44m" + repeatLines(60), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newScreen(t, 5, 3)
			s.noBulk = !c.bulk
			s.Write(c.in)
			f := frame(s)
			for x := 1; x < 5; x++ {
				got := f.Cell(x, 2)
				if got.BG != PaletteColor(4) || got.Attrs != 0 || !got.FG.IsDefault() {
					t.Fatalf("bottom row cell %d: bg %#x attrs %b fg %#x; want only background palette 4",
						x, got.BG, got.Attrs, got.FG)
				}
			}
			if c.bulk && s.bulks == 0 {
				t.Fatal("the bulk path did not run")
			}
		})
	}
}

// Erasing gives the cells only the background: not the foreground, and
// not underline, reverse or the other attributes (xterm).
func TestEraseTakesOnlyBackground(t *testing.T) {
	s, _ := newScreen(t, 6, 2)
	s.Write("\x1b[4;7;31;42mab\x1b[K\x1b[2;3H\x1b[2X")
	f := frame(s)
	for _, p := range [][2]int{{3, 0}, {5, 0}, {2, 1}, {3, 1}} {
		got := f.Cell(p[0], p[1])
		if got.BG != PaletteColor(2) || got.Attrs != 0 || !got.FG.IsDefault() {
			t.Errorf("cell %v: fg %#x bg %#x attrs %b; want background palette 2 only", p, got.FG, got.BG, got.Attrs)
		}
	}
	if got := f.Cell(0, 0); got.Attrs != AttrUnderline|AttrReverse || got.FG != PaletteColor(1) {
		t.Errorf("printed cell lost its style: %+v", got)
	}
}

func repeatLines(n int) string {
	b := make([]byte, 0, n*3)
	for i := 0; i < n; i++ {
		b = append(b, 'l', '\r', '\n')
	}
	return string(b)
}
