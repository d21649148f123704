package vt

import (
	"strings"
	"testing"
)

// Each defect TERMINAL.md lists, fed whole and one byte at a time.
func TestDefectFixes(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string // leading rows, trailing blanks trimmed
	}{
		{"kitty keyboard not restore cursor", "ab\x1b[?u\x1b[>1u\x1b[<u\x1b[=1;1ucd", []string{"abcd"}},
		{"kitty after save", "\x1b[s\x1b[5Cx\x1b[?uy", []string{"     xy"}},
		{"modifyOtherKeys keeps SGR", "\x1b[31m\x1b[>4;2mX\x1b[>4mY", []string{"XY"}},
		{"ESC ) 0 prints nothing", "\x1b)0abc", []string{"abc"}},
		{"SO selects G1 line drawing", "\x1b)0\x0elqk\x0fq", []string{"┌─┐q"}},
		{"ESC ( 0 then SI/SO", "\x1b(0q\x1b(Bq", []string{"─q"}},
		{"redundant exits keep main", "keep\x1b[?47l\x1b[?1047lX", []string{"keepX"}},
		{"redundant 1049l restores cursor", "ab\x1b7\r\nkeep\x1b[?1049lX", []string{"abX", "keep"}},
		{"alt enter and exit", "main\x1b[?1049hALT\x1b[?1049l!", []string{"main!"}},
		{"REP", "a\x1b[4bz", []string{"aaaaaz"}},
		{"REP after wide", "日\x1b[2b|", []string{"日日日|"}},
		{"REP after control ignored", "a\r\x1b[3bz", []string{"z"}},
		{"CUP empty row", "\x1b[;5HX", []string{"    X"}},
		{"CUP zero", "\x1b[0;0HX", []string{"X"}},
		{"tab keeps a pending wrap", "0123456789\tX", []string{"0123456789", "X"}},
		{"CUP then wide at margin", "\x1b[1;10H日x", []string{"", "日x"}},
		{"CUP in origin mode then wrap", "\x1b[2;3r\x1b[?6h\x1b[2;9Habc", []string{"", "        ab", "c"}},
		{"ICH 0 inserts one", "abc\x1b[1;2H\x1b[0@", []string{"a bc"}},
		{"DCH 0 deletes one", "abcd\x1b[1;2H\x1b[0P", []string{"acd"}},
		{"ECH 0 erases one", "abcd\x1b[1;2H\x1b[0X", []string{"a cd"}},
		{"DL 0 deletes one line", "1\r\n2\r\n3\x1b[1;1H\x1b[0M", []string{"2", "3"}},
		{"ED 1 on row 1 clears row 0", "aaa\r\nbbb\x1b[2;2H\x1b[1J", []string{"", "  b"}},
		{"SGR empty field is reset", "\x1b[1m\x1b[;32mX", []string{"X"}},
		{"DECSTBM single line ignored", "\x1b[3;3r\x1b[5;1HX", []string{"", "", "", "", "X"}},
		{"IRM inserts", "abcdef\r\x1b[4hXY\x1b[4l", []string{"XYabcdef"}},
		{"C0 controls dropped", "a\x00\x05\x07\x7fb\x1b(0\x01a", []string{"ab▒"}},
		{"DCS dropped", "a\x1bP+q544e\x1b\\b", []string{"ab"}},
		{"APC with UTF-8 dropped", "a\x1b_Gé\x1b\\b", []string{"ab"}},
		{"OSC with 0x9C byte", "a\x1b]0;“x”\x07b", []string{"ab"}},
		{"unknown ESC dropped", "a\x1b F\x1bNb", []string{"ab"}},
		{"CAN aborts CSI", "a\x1b[3\x18b", []string{"ab"}},
		{"control inside CSI", "ab\x1b[\r2Cx", []string{"abx"}},
		{"UTF-8 inside CSI aborts it", "a\x1b[é", []string{"aé"}},
		{"long CSI dropped", "a\x1b[" + strings.Repeat("1;", 200) + "mb", []string{"ab"}},
		{"placeholder from child", "a\ufdd0b", []string{"a\ufffdb"}},
		{"DECSCUSR not printed", "a\x1b[5 qb", []string{"ab"}},
		{"XTVERSION not printed", "a\x1b[>qb", []string{"ab"}},
		{"DECRQM not printed", "a\x1b[?2026$pb", []string{"ab"}},
		{"RIS in alt screen", "main\x1b[?1049halt\x1bcX\x1b[?1049hY\x1b[?1049lZ", []string{"XZ"}},
		{"DECALN", "\x1b#8", []string{"EEEEEEEEEE", "EEEEEEEEEE"}},
		{"SU", "1\r\n2\r\n3\x1b[2S", []string{"3"}},
		{"ED 3 keeps screen", "abc\x1b[3J", []string{"abc"}},
		{"DECSTR keeps cursor", "ab\x1b[2;5r\x1b[1;3H\x1b[!pX", []string{"abX"}},
	}
	for _, c := range cases {
		for _, split := range []bool{false, true} {
			name := c.name
			if split {
				name += "/bytewise"
			}
			t.Run(name, func(t *testing.T) {
				s, _ := newScreen(t, 10, 6)
				if split {
					for i := 0; i < len(c.in); {
						// Split between bytes of a sequence, but keep
						// runes whole (the collector's promise).
						n := 1
						for i+n < len(c.in) && c.in[i+n]&0xc0 == 0x80 {
							n++
						}
						s.Write(c.in[i : i+n])
						i += n
					}
				} else {
					s.Write(c.in)
				}
				got := lines(s)
				for i, w := range c.want {
					if i >= len(got) || got[i] != w {
						t.Fatalf("rows %q, want %q", got, c.want)
					}
				}
			})
		}
	}
}

func TestColonSGR(t *testing.T) {
	s, _ := newScreen(t, 20, 2)
	s.Write("\x1b[38:2::255:0:0mA\x1b[48:5:17mB\x1b[4:3mC\x1b[4:0mD\x1b[38;2;0;0;200mE\x1b[1;31mF\x1b[0;7;32;44mG")
	f := frame(s)
	want := []Cell{
		{Rune: 'A', FG: RGBColor(255, 0, 0)},
		{Rune: 'B', FG: RGBColor(255, 0, 0), BG: PaletteColor(17)},
		{Rune: 'C', FG: RGBColor(255, 0, 0), BG: PaletteColor(17), Attrs: AttrUnderline, Under: UnderlineCurly},
		{Rune: 'D', FG: RGBColor(255, 0, 0), BG: PaletteColor(17)},
		// rgb(0,0,b) stays itself (vt10x alone reads it as palette b).
		{Rune: 'E', FG: RGBColor(0, 0, 200), BG: PaletteColor(17)},
		// bold keeps the base colour (vt10x alone brightens it).
		{Rune: 'F', FG: PaletteColor(1), BG: PaletteColor(17), Attrs: AttrBold},
		// reverse keeps the colours the application set.
		{Rune: 'G', FG: PaletteColor(2), BG: PaletteColor(4), Attrs: AttrReverse},
	}
	for i, w := range want {
		if got := f.Cell(i, 0); got != w {
			t.Errorf("cell %d: got %+v, want %+v", i, got, w)
		}
	}
}

func TestTitle(t *testing.T) {
	s, _ := newScreen(t, 10, 2)
	s.Write("\x1b]0;one; two “q”\x07")
	if got := s.Title(); got != "one; two “q”" {
		t.Fatalf("title %q", got)
	}
	s.Write("\x1b]2;x\x01y\x1b\\")
	if got := s.Title(); got != "xy" {
		t.Fatalf("title %q", got)
	}
	s.Write("\x1b]2;" + strings.Repeat("é", 1000) + "\x07")
	if got := s.Title(); len(got) > maxTitle || !strings.HasPrefix(got, "éé") {
		t.Fatalf("title len %d", len(got))
	}
}

func TestModes(t *testing.T) {
	s, _ := newScreen(t, 10, 2)
	if m := s.Modes(); !m.CursorVisible || m.AppCursor || m.Mouse != MouseNone {
		t.Fatalf("initial %+v", m)
	}
	s.Write("\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[?25l\x1b[4 q")
	m := s.Modes()
	want := Modes{AppCursor: true, AppKeypad: true, BracketedPaste: true, FocusEvents: true,
		Mouse: MouseButton, MouseEncoding: MouseEncodingSGR}
	if m != want {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if f := frame(s); f.Cursor.Shape != CursorSteadyUnderline || f.Cursor.Visible {
		t.Fatalf("cursor %+v", f.Cursor)
	}
	s.Write("\x1b[?1003h\x1b[?1015h")
	if m := s.Modes(); m.Mouse != MouseAny || m.MouseEncoding != MouseEncodingURXVT {
		t.Fatalf("got %+v", m)
	}
	s.Write("\x1b[?1000l\x1b[?1015l\x1b[?1l\x1b>\x1b[?2004l\x1b[?1004l\x1b[?25h\x1b[0 q")
	m = s.Modes()
	if m != (Modes{CursorVisible: true}) {
		t.Fatalf("got %+v", m)
	}
	if f := frame(s); f.Cursor.Shape != CursorBlinkingBlock {
		t.Fatalf("shape %v", f.Cursor.Shape)
	}
	s.Write("\x1b[?9h")
	if s.Modes().Mouse != MouseX10 {
		t.Fatal("X10 mouse")
	}
	s.Write("\x1b[?1049h")
	if !s.Modes().AltScreen {
		t.Fatal("alt screen")
	}
	s.Write("\x1bc")
	if m := s.Modes(); m != (Modes{CursorVisible: true}) {
		t.Fatalf("after RIS %+v", m)
	}
}

func TestMoreModes(t *testing.T) {
	s, rb := newScreen(t, 10, 3)
	s.Write("\x1b[?1005h\x1b[?12h\x1b[4h\x1b[?1000h")
	m := s.Modes()
	if m.MouseEncoding != MouseEncodingUTF8 || !m.CursorBlink || !m.Insert || m.Mouse != MouseNormal {
		t.Fatalf("got %+v", m)
	}
	s.Write("\x1b[?1006l") // resetting an encoding that is not active changes nothing
	if s.Modes().MouseEncoding != MouseEncodingUTF8 {
		t.Fatal("1006l reset 1005")
	}
	s.Write("\x1b[!p") // DECSTR
	if m := s.Modes(); m.Insert || !m.CursorVisible {
		t.Fatalf("after DECSTR %+v", m)
	}
	// LNM: line feed also returns the carriage.
	s.Write("\x1b[20hab\ncd\x1b[20l\nef")
	if got := lines(s); got[0] != "ab" || got[1] != "cd" || got[2] != "  ef" {
		t.Fatalf("LNM rows %q", got)
	}
	_ = rb
}

func TestSplitEverywhere(t *testing.T) {
	in := "\x1b[1;31mred\x1b[m \x1b]0;t“i”\x07日本\x1b[?1049h\x1b[2;3Hx\x1b[?1049l" +
		"e\u0301\x1b)0\x0eq\x0f\x1b[38:2::1:2:3mc\x1b[3bZ\x1bP+q\x1b\\\x1b[>4;2m!"
	whole, _ := newScreen(t, 20, 4)
	whole.Write(in)
	want := string(Render(nil, frame(whole)))
	for k := 1; k < len(in); k++ {
		if !utf8RuneStart(in[k]) {
			continue
		}
		s, _ := newScreen(t, 20, 4)
		s.Write(in[:k])
		s.Write(in[k:])
		if got := string(Render(nil, frame(s))); got != want {
			t.Fatalf("split at %d:\n got %q\nwant %q", k, got, want)
		}
		if s.Title() != "t“i”" {
			t.Fatalf("split at %d: title %q", k, s.Title())
		}
		s.Close()
	}
}

func utf8RuneStart(b byte) bool { return b&0xc0 != 0x80 }
