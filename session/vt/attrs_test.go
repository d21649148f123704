package vt

import (
	"strings"
	"testing"
)

// The attributes vt10x does not keep are kept per cell: faint,
// strikethrough, overline, conceal, underline styles and colour.
func TestContract_E1_AttributesKept(t *testing.T) {
	s, _ := newScreen(t, 20, 2)
	s.Write("\x1b[2mF\x1b[22;9mS\x1b[29;53mO\x1b[55;4:3mC\x1b[4:2mD\x1b[4:4;58;5;196mT" +
		"\x1b[4:5;58:2::1:2:3mH\x1b[59mx\x1b[21my\x1b[24mn\x1b[m\x1b[8mZ\x1b[28mz\x1b[1;2mb\x1b[22mN")
	u := AttrUnderline
	want := []Cell{
		{Rune: 'F', Attrs: AttrFaint},
		{Rune: 'S', Attrs: AttrStrike},
		{Rune: 'O', Attrs: AttrOverline},
		{Rune: 'C', Attrs: u, Under: UnderlineCurly},
		{Rune: 'D', Attrs: u, Under: UnderlineDouble},
		{Rune: 'T', Attrs: u, Under: UnderlineDotted, UL: PaletteColor(196)},
		{Rune: 'H', Attrs: u, Under: UnderlineDashed, UL: RGBColor(1, 2, 3)},
		{Rune: 'x', Attrs: u, Under: UnderlineDashed},
		{Rune: 'y', Attrs: u, Under: UnderlineDouble},
		{Rune: 'n'},
		{Rune: 'Z', Attrs: AttrConceal},
		{Rune: 'z'},
		{Rune: 'b', Attrs: AttrBold | AttrFaint},
		{Rune: 'N'},
	}
	f := frame(s)
	for i, w := range want {
		if got := f.Cell(i, 0); got != w {
			t.Errorf("cell %d: got %+v, want %+v", i, got, w)
		}
	}
	got := string(Render(nil, f))
	wantSGR := "\x1b[0;2mF\x1b[0;9mS\x1b[0;53mO\x1b[0;4:3mC\x1b[0;4:2mD\x1b[0;4:4;58:5:196mT" +
		"\x1b[0;4:5;58:2::1:2:3mH\x1b[0;4:5mx\x1b[0;4:2my\x1b[mn\x1b[0;8mZ\x1b[mz\x1b[0;1;2mb\x1b[mN"
	if !strings.HasPrefix(got, wantSGR) {
		t.Fatalf("render:\n got %q\nwant %q...", got, wantSGR)
	}
}

// OSC 8 hyperlinks stay with their cells, on screen and in the
// scrollback, and are rendered around them; a link that is not printable
// ASCII is dropped (its text still shows).
func TestHyperlinks(t *testing.T) {
	s, _ := newScreen(t, 12, 2)
	s.Write("\x1b]8;;http://x/a\x1b\\Li\x1b]8;id=7;http://y/\aM\x1b[1mN\x1b[m\x1b]8;;\x1b\\e" +
		"\x1b]8;;http://bad/\xc2\x9b31m\x1b\\B\x1b]8;;\x1b\\\r\n")
	f := frame(s)
	link := func(x int) string { return f.Links[f.Cell(x, 0).Link] }
	for x, w := range []string{";http://x/a", ";http://x/a", "id=7;http://y/", "id=7;http://y/", "", ""} {
		if got := link(x); got != w {
			t.Errorf("cell %d: link %q, want %q", x, got, w)
		}
	}
	got := string(RenderRow(nil, f, 0))
	want := "\x1b]8;;http://x/a\x1b\\Li\x1b]8;id=7;http://y/\x1b\\M\x1b[0;1mN\x1b]8;;\x1b\\\x1b[me"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("render:\n got %q\nwant %q...", got, want)
	}
	s.Write("\n\n")
	var h Frame
	s.SnapshotRange(&h, 0, 1)
	if got := string(RenderRow(nil, &h, 0)); !strings.HasPrefix(got, want) {
		t.Fatalf("scrollback render:\n got %q\nwant %q...", got, want)
	}
}

// The link table is bounded: links no cell uses any more are forgotten.
func TestContract_L2_LinkTableBounded(t *testing.T) {
	s, _ := newScreen(t, 10, 2, WithScrollback(5))
	var b strings.Builder
	for i := range 5000 {
		b.Reset()
		b.WriteString("\x1b]8;;http://h/")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(itoa(i))
		b.WriteString("\x1b\\L\x1b]8;;\x1b\\\r\n")
		s.Write(b.String())
	}
	if n := len(s.f.links.urls); n > maxLinks {
		t.Fatalf("link table grew to %d", n)
	}
	f := frame(s)
	if got := f.Links[f.Cell(0, 0).Link]; !strings.HasSuffix(got, "4999") {
		t.Fatalf("last link lost: %q", got)
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }
