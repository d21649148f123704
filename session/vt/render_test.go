package vt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRenderSGR(t *testing.T) {
	s, _ := newScreen(t, 8, 2)
	s.Write("\x1b[1;31mA\x1b[0;38;5;200;48;2;1;2;3mB\x1b[0;3;4;5mC\x1b[0;7mD\x1b[0;97;100mE\x1b[mF")
	got := string(Render(nil, frame(s)))
	want := "\x1b[0;1;31mA" +
		"\x1b[0;38;5;200;48;2;1;2;3mB" +
		"\x1b[0;3;4;5mC" +
		"\x1b[0;7mD" + // reverse of default colours: swapped once, by the terminal
		"\x1b[0;97;100mE" +
		"\x1b[mF  \n        "
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestRenderRowReset(t *testing.T) {
	s, _ := newScreen(t, 3, 2)
	s.Write("\x1b[41mabc\x1b[m")
	got := string(Render(nil, frame(s)))
	if got != "\x1b[0;41mabc\x1b[m\n   " {
		t.Fatalf("got %q", got)
	}
}

func TestRenderWidthExact(t *testing.T) {
	f := &Frame{}
	f.setSize(4, 1)
	// Hand-made frame with every kind of bad cell: each must still take
	// exactly one column.
	copy(f.Cells, []Cell{
		{Rune: '日'},                       // wide rune without the flag
		{Rune: '本', Flags: FlagWide},      // wide flag without a placeholder after it
		{Rune: '\u0301'},                  // zero width
		{Rune: 0, Flags: FlagPlaceholder}, // placeholder without its wide rune
	})
	if got := string(RenderText(nil, f)); got != "" {
		t.Fatalf("got %q", got)
	}
	if got := string(Render(nil, f)); got != "    " {
		t.Fatalf("got %q", got)
	}
	copy(f.Cells, []Cell{{Rune: 'a'}, {Rune: '日', Flags: FlagWide}, {Flags: FlagPlaceholder}, {Rune: 'b'}})
	if got := string(Render(nil, f)); got != "a日b" {
		t.Fatalf("got %q", got)
	}
}

func TestRenderTextTrims(t *testing.T) {
	s, _ := newScreen(t, 6, 3)
	s.Write("a b  \r\n\r\n  c")
	if got := text(s); got != "a b\n\n  c" {
		t.Fatalf("got %q", got)
	}
}

// Every rendered row is exactly the frame width, whatever was written.
func TestRenderRowWidths(t *testing.T) {
	s, _ := newScreen(t, 7, 3)
	s.Write("日本語テキスト\x1b[1;2Hx😀e\u0301\x1b[2;7H日\x1b[3;1H\x1b[4hab日")
	f := frame(s)
	for y := 0; y < f.Rows; y++ {
		row := string(RenderRow(nil, f, y))
		if w := displayWidth(row); w != 7 {
			t.Errorf("row %d %q is %d columns", y, row, w)
		}
	}
}

// displayWidth strips escapes and sums rune widths.
// displayWidth is how many columns rendered text takes on a terminal
// that segments clusters as the Screen does: SGR and OSC 8 take none.
func displayWidth(s string) int {
	w := 0
	var cl []byte
	end := func() {
		if len(cl) > 0 {
			w += clusterWidth(string(cl))
		}
		cl = cl[:0]
	}
	for len(s) > 0 {
		if strings.HasPrefix(s, "\x1b]") {
			i := strings.Index(s, "\x1b\\")
			s = s[i+2:]
			continue
		}
		if s[0] == 0x1b {
			i := strings.IndexByte(s, 'm')
			s = s[i+1:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		s = s[n:]
		last, _ := utf8.DecodeLastRune(cl)
		first, _ := utf8.DecodeRune(cl)
		switch {
		case len(cl) > 0 && (runeWidth(r) == 0 || last == 0x200d && pictograph(r) ||
			isRegional(r) && isRegional(first) && utf8.RuneCount(cl) == 1):
		default:
			end()
		}
		cl = utf8.AppendRune(cl, r)
	}
	end()
	return w
}

func TestDump(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("1\r\n2\r\n3\r\n\x1b[31m4\x1b[m\r\n\x1b[44m  \x1b[m日")
	if got := string(s.Dump(nil, false, false)); got != "3\n4\n  日" {
		t.Fatalf("text %q", got)
	}
	if got := string(s.Dump(nil, true, false)); got != "1\n2\n3\n4\n  日" {
		t.Fatalf("with scrollback %q", got)
	}
	if got := string(s.Dump(nil, false, true)); got != "3\n\x1b[0;31m4\x1b[m\n\x1b[0;44m  \x1b[m日" {
		t.Fatalf("sgr %q", got)
	}
}
