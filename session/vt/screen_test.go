package vt

import (
	"strings"
	"testing"
)

func TestPlainText(t *testing.T) {
	s, _ := newScreen(t, 20, 4)
	s.Write("hello\r\nworld")
	if got := text(s); got != "hello\nworld\n\n" {
		t.Fatalf("got %q", got)
	}
	f := frame(s)
	if f.Cursor.X != 5 || f.Cursor.Y != 1 || !f.Cursor.Visible {
		t.Fatalf("cursor %+v", f.Cursor)
	}
}

func TestWideCharacters(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("ab日本cd|")
	f := frame(s)
	if got := string(RenderText(nil, f)); !strings.HasPrefix(got, "ab日本cd|\n") {
		t.Fatalf("got %q", got)
	}
	if f.Cursor.X != 9 {
		t.Fatalf("cursor x %d, want 9 (ab日本cd| is 9 columns)", f.Cursor.X)
	}
	if f.Cell(2, 0).Flags != FlagWide || f.Cell(3, 0).Flags != FlagPlaceholder {
		t.Fatalf("flags %v %v", f.Cell(2, 0).Flags, f.Cell(3, 0).Flags)
	}
}

func TestWideAtRightMargin(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("123456789日x")
	if got := lines(s); got[0] != "123456789" || got[1] != "日x" {
		t.Fatalf("got %q", got)
	}
}

func TestBrokenWideRune(t *testing.T) {
	s, _ := newScreen(t, 10, 2)
	s.Write("日本\x1b[1;2Hx") // overwrite the right half of 日
	if got := lines(s)[0]; got != " x本" {
		t.Fatalf("got %q", got)
	}
	s.Write("\x1b[1;3Hy") // overwrite the left half of 本
	if got := lines(s)[0]; got != " xy" {
		t.Fatalf("got %q", got)
	}
}

func TestAttention(t *testing.T) {
	cases := map[string]bool{
		"plain text":                   false,
		"ding\a":                       true,
		"\x1b]2;title\a":               false, // BEL ends the OSC: not a bell
		"\x1b]9;build done\a":          true,
		"\x1b]9;4;1;50\a":              false, // ConEmu progress, not a notification
		"\x1b]777;notify;T;body\x1b\\": true,
		"\x1b]777;other\a":             false,
	}
	for in, want := range cases {
		s := New(20, 3)
		s.Write(in)
		if got := s.TakeAttention(); got != want {
			t.Errorf("%q: attention %v, want %v", in, got, want)
		}
		if s.TakeAttention() {
			t.Errorf("%q: attention not cleared", in)
		}
		s.Close()
	}
}
