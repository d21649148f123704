package vt

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

// TestKittyKeyboardStack follows the kitty protocol's stack on each
// screen: push, pop, set in its three modes, the query, overflow, and the
// two screens apart.
func TestKittyKeyboardStack(t *testing.T) {
	cases := []struct {
		name, in string
		flags    KeyFlags
		reply    string
	}{
		{"none", "\x1b[?u", 0, "\x1b[?0u"},
		{"push", "\x1b[>1u\x1b[?u", 1, "\x1b[?1u"},
		{"push masks", "\x1b[>255u\x1b[?u", 31, "\x1b[?31u"},
		{"push twice pop once", "\x1b[>1u\x1b[>3u\x1b[<u\x1b[?u", 1, "\x1b[?1u"},
		{"pop more than pushed", "\x1b[>1u\x1b[>3u\x1b[<5u\x1b[?u", 0, "\x1b[?0u"},
		{"pop empty", "\x1b[<u", 0, ""},
		{"set replaces", "\x1b[>1u\x1b[=8u", 8, ""},
		{"set explicit mode", "\x1b[>1u\x1b[=8;1u", 8, ""},
		{"set adds", "\x1b[>1u\x1b[=8;2u", 9, ""},
		{"set clears", "\x1b[>31u\x1b[=6;3u", 25, ""},
		{"set unknown mode", "\x1b[>1u\x1b[=8;4u", 1, ""},
		{"set on empty then pop", "\x1b[=3u\x1b[<u", 0, ""},
		{"overflow drops the oldest", strings.Repeat("\x1b[>1u", 8) + "\x1b[>3u" + strings.Repeat("\x1b[<u", 8), 0, ""},
		{"overflow keeps the newest", "\x1b[>2u" + strings.Repeat("\x1b[>1u", 7) + "\x1b[<7u", 2, ""},
		{"alternate screen apart", "\x1b[>1u\x1b[?1049h\x1b[?u", 0, "\x1b[?0u"},
		{"alternate screen own", "\x1b[>1u\x1b[?1049h\x1b[>31u", 31, ""},
		{"main back after alternate", "\x1b[>1u\x1b[?1049h\x1b[>31u\x1b[?1049l", 1, ""},
		{"alternate fresh each time", "\x1b[?1049h\x1b[>31u\x1b[?1049l\x1b[?1049h", 0, ""},
		{"RIS", "\x1b[>1u\x1bc", 0, ""},
		{"restore cursor untouched", "\x1b[3;4H\x1b[>1u\x1b[<u\x1b[=1u\x1b[?ux", 1, "\x1b[?1u"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, rb := newScreen(t, 20, 5)
				s.Write(c.in)
				synctest.Wait()
				if got := s.Modes().KeyFlags; got != c.flags {
					t.Errorf("flags %d, want %d", got, c.flags)
				}
				if got := rb.String(); got != c.reply {
					t.Errorf("reply %q, want %q", got, c.reply)
				}
				s.Close()
			})
		})
	}
}

// TestKittyKeysLeaveCursor: vt10x takes CSI … u as restore cursor; the
// kitty sequences must not reach it.
func TestKittyKeysLeaveCursor(t *testing.T) {
	s, _ := newScreen(t, 20, 5)
	s.Write("\x1b[2;2H\x1b7\x1b[4;6H\x1b[>1u\x1b[<u\x1b[=1u\x1b[?ux")
	if got := lines(s)[3]; strings.TrimRight(got, " ") != "     x" {
		t.Fatalf("row 4 %q: the cursor moved", got)
	}
}

// TestModifyOtherKeys: CSI > 4 ; n m sets the level per screen (vt10x
// would take it as SGR reset), CSI > 4 m and CSI > 4 n reset it, and
// CSI ? 4 m asks for it.
func TestModifyOtherKeys(t *testing.T) {
	cases := []struct {
		name, in string
		level    uint8
		reply    string
	}{
		{"level 1", "\x1b[>4;1m", 1, ""},
		{"level 2", "\x1b[>4;2m", 2, ""},
		{"reset", "\x1b[>4;2m\x1b[>4m", 0, ""},
		{"reset all", "\x1b[>4;2m\x1b[>m", 0, ""},
		{"disable", "\x1b[>4;2m\x1b[>4n", 0, ""},
		{"out of range", "\x1b[>4;2m\x1b[>4;9m", 2, ""},
		{"other resource", "\x1b[>1;2m", 0, ""},
		{"query", "\x1b[>4;2m\x1b[?4m", 2, "\x1b[>4;2m"},
		{"alternate screen apart", "\x1b[>4;2m\x1b[?1049h", 0, ""},
		{"main back", "\x1b[>4;2m\x1b[?1049h\x1b[>4;1m\x1b[?1049l", 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, rb := newScreen(t, 20, 5)
				s.Write("\x1b[1;31m" + c.in + "x")
				synctest.Wait()
				if got := s.Modes().ModifyOtherKeys; got != c.level {
					t.Errorf("level %d, want %d", got, c.level)
				}
				if got := rb.String(); got != c.reply {
					t.Errorf("reply %q, want %q", got, c.reply)
				}
				if cell := frame(s).Cell(0, 0); cell.Attrs&AttrBold == 0 {
					t.Errorf("the pen was reset: %+v", cell)
				}
				s.Close()
			})
		})
	}
}

// TestDECRQMModes: every mode the Screen tracks is reported as it is.
func TestDECRQMModes(t *testing.T) {
	private := []int{1, 6, 7, 12, 25, 9, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1049, 2004, 2026, 2031}
	for _, n := range private {
		for _, set := range []bool{true, false} {
			t.Run(fmt.Sprint(n, set), func(t *testing.T) {
				in := fmt.Sprintf("\x1b[?%dh", n)
				want := 1
				if !set {
					in += fmt.Sprintf("\x1b[?%dl", n)
					want = 2
				}
				got := replies(t, in+fmt.Sprintf("\x1b[?%d$p", n))
				if w := fmt.Sprintf("\x1b[?%d;%d$y", n, want); got != w {
					t.Fatalf("got %q, want %q", got, w)
				}
			})
		}
	}
	for _, n := range []int{2027, 9999} {
		if got, w := replies(t, fmt.Sprintf("\x1b[?%d$p", n)), fmt.Sprintf("\x1b[?%d;0$y", n); got != w {
			t.Errorf("mode %d: got %q, want %q", n, got, w)
		}
	}
}

// TestTheme: colour queries are answered with the theme set, darkness
// with CSI ? 996 n, and a child with mode 2031 hears of a change between
// dark and light (and of nothing else).
func TestTheme(t *testing.T) {
	light := Theme{FG: [3]uint8{0x20, 0x20, 0x20}, BG: [3]uint8{0xfa, 0xf0, 0xe6}, Cursor: [3]uint8{1, 2, 3}}
	synctest.Test(t, func(t *testing.T) {
		s, rb := newScreen(t, 20, 5)
		s.Write("\x1b[?996n")
		s.SetTheme(light)
		s.Write("\x1b]11;?\x07\x1b]10;?\x1b\\\x1b]12;?\x07\x1b[?996n")
		synctest.Wait()
		want := "\x1b[?997;1n" + "\x1b]11;rgb:fafa/f0f0/e6e6\x07\x1b]10;rgb:2020/2020/2020\x1b\\\x1b]12;rgb:0101/0202/0303\x07" + "\x1b[?997;2n"
		if got := rb.String(); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		s.Close()
	})
	synctest.Test(t, func(t *testing.T) {
		s, rb := newScreen(t, 20, 5)
		s.SetTheme(light) // not asked for yet: nothing
		s.Write("\x1b[?2031h")
		s.SetTheme(Theme{BG: [3]uint8{0xff, 0xff, 0xff}}) // light still: nothing
		s.SetTheme(DefaultTheme)
		s.Write("\x1b[?2031l")
		s.SetTheme(light)
		synctest.Wait()
		if got, want := rb.String(), "\x1b[?997;1n"; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		s.Close()
	})
}

// TestKeyframeKeyboard: a keyframe carries both screens' keyboard state
// and mode 2031, stacks included (the tail pops them).
func TestKeyframeKeyboard(t *testing.T) {
	for name, c := range map[string]struct{ head, tail string }{
		"main stack":     {"\x1b[>1u\x1b[>3u\x1b[=8;2u", "\x1b[<u"},
		"main empty set": {"\x1b[=5u", "\x1b[<u"},
		"modify keys":    {"\x1b[>4;2m", "\x1b[?1049h"},
		"alt stacks":     {"\x1b[>1u\x1b[>4;1m\x1b[?1049h\x1b[>31u\x1b[>4;2m", "\x1b[<u\x1b[?1049l\x1b[<u"},
		"2031":           {"\x1b[?2031h", "x"},
	} {
		t.Run(name, func(t *testing.T) { checkKeyframe(t, 20, 6, c.head, c.tail) })
	}
}
