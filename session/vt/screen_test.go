package vt

import (
	"fmt"
	"slices"
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

func TestMarks(t *testing.T) {
	cases := map[string][]Mark{
		"plain text":                        nil,
		"ding\a":                            {{Kind: MarkBell}},
		"\x1b]2;title\a":                    nil, // BEL ends the OSC: not a bell
		"\x1b]9;build done\a":               {{Kind: MarkNotify, Text: "build done"}},
		"\x1b]9;4;1;50\a":                   {{Kind: MarkProgress, State: 1, N: 50}},
		"\x1b]9;4;0;\a":                     {{Kind: MarkProgress}},
		"\x1b]9;4;9;50\a":                   nil, // no such progress state
		"\x1b]9;9;C:\\Users\\me\a":          nil, // ConEmu's working directory, at every prompt
		"\x1b]9;12\a":                       nil, // ConEmu's prompt start
		"\x1b]9;3 tests failed\a":           {{Kind: MarkNotify, Text: "3 tests failed"}},
		"\x1b]777;notify;T;body\x1b\\":      {{Kind: MarkNotify, Text: "T: body"}},
		"\x1b]777;other\a":                  nil,
		"\x1b]133;A\a$ \x1b]133;B\a":        {{Kind: MarkPrompt}, {Kind: MarkPrompt}},
		"\x1b]133;C\x1b\\out\x1b]133;D;1\a": {{Kind: MarkCommand}, {Kind: MarkCommandDone, N: 1, Known: true}},
		"\x1b]133;D\a":                      {{Kind: MarkCommandDone}},
		"\x1b]133;D;0;aid=7\a":              {{Kind: MarkCommandDone, Known: true}},
		"\x1b]133;Z\a":                      nil,
		"split \x1b]13":                     nil, // unfinished: nothing yet
	}
	for in, want := range cases {
		s := New(20, 3)
		s.Write(in)
		if got := s.TakeMarks(nil); !slices.Equal(got, want) {
			t.Errorf("%q: marks %+v, want %+v", in, got, want)
		}
		if got := s.TakeMarks(nil); len(got) != 0 {
			t.Errorf("%q: marks not cleared: %+v", in, got)
		}
		s.Close()
	}
}

// The marks between two takes are bounded: the newest are kept.
func TestMarksBounded(t *testing.T) {
	s := New(20, 3)
	defer s.Close()
	for range 100 {
		s.Write("\a")
	}
	s.Write("\x1b]133;C\a")
	got := s.TakeMarks(nil)
	if len(got) != maxMarks || got[len(got)-1].Kind != MarkCommand {
		t.Fatalf("%d marks, the last %+v", len(got), got[len(got)-1])
	}
}

func TestLastRows(t *testing.T) {
	s := New(10, 5)
	defer s.Close()
	s.Write("one\r\ntwo  \r\n\r\nfour\r\n")
	var f Frame
	s.Snapshot(&f)
	if got := f.LastRows(2, nil); !slices.Equal(got, []string{"", "four"}) {
		t.Fatalf("LastRows(2) = %q", got)
	}
	if got := f.LastRows(9, nil); !slices.Equal(got, []string{"one", "two", "", "four"}) {
		t.Fatalf("LastRows(9) = %q", got)
	}
}

// rowBlank says what RenderRowText says of a row, without rendering it:
// rows of spaces, coloured erases, wide characters and their halves,
// clusters, marks and controls, each alone at some column.
func TestRowBlankIsRenderedEmpty(t *testing.T) {
	pieces := []string{
		" ", "x", "\x1b[41m \x1b[m", "\x1b[44m\x1b[K\x1b[m", "漢", "e\u0301", "\u0301",
		"👍🏽", "\u200b", "\x1b[7m \x1b[m", "\x1b]8;;http://x\x07 \x1b]8;;\x07", "\t",
	}
	for _, p := range pieces {
		for _, col := range []int{1, 5, 9, 10} {
			s := New(10, 3)
			s.Write(fmt.Sprintf("\x1b[2;%dH%s", col, p))
			var f Frame
			s.Snapshot(&f)
			for y := range f.Rows {
				empty := len(RenderRowText(nil, &f, y)) == 0
				if got := rowBlank(&f, y); got != empty {
					t.Errorf("%q at column %d, row %d: rowBlank %v, rendered %q", p, col, y, got, RenderRowText(nil, &f, y))
				}
			}
			s.Close()
		}
	}
	// Cells no screen writes today, as a frame could hold them: controls,
	// C1, a placeholder or a wide half alone, a cluster on a placeholder.
	for _, c := range []Cell{
		{Rune: 0x01}, {Rune: 0x85}, {Rune: 'x', Flags: FlagPlaceholder}, {Rune: '漢', Flags: FlagWide},
		{Rune: 'e', Text: "e\u0301", Flags: FlagPlaceholder}, {Rune: 0x7f, Text: "\x7f\u0301"},
		{Rune: '漢'}, {Rune: 'e', Text: "e\u0301"}, {Rune: 'x'},
	} {
		f := Frame{Cols: 3, Rows: 1, Cells: []Cell{{}, c, {Rune: ' '}}}
		empty := len(RenderRowText(nil, &f, 0)) == 0
		if got := rowBlank(&f, 0); got != empty {
			t.Errorf("cell %+v: rowBlank %v, rendered %q", c, got, RenderRowText(nil, &f, 0))
		}
	}
}

// BenchmarkLastRows is a screen rule's read of a tall screen whose few
// lines are at its top: the rows below them are passed over as blank.
func BenchmarkLastRows(b *testing.B) {
	s := New(200, 49)
	defer s.Close()
	s.Write("$ claude\r\nDo you want to proceed?\r\n> ")
	var f Frame
	s.Snapshot(&f)
	var rows []string
	b.ReportAllocs()
	for b.Loop() {
		rows = f.LastRows(5, rows[:0])
	}
}
