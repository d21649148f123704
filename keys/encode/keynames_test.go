package encode

import (
	"strings"
	"testing"

	"github.com/sandmux/sandmux/session/vt"
)

func TestEncodeKeyNames(t *testing.T) {
	app := vt.Modes{AppCursor: true}
	cases := []struct {
		names []string
		m     vt.Modes
		want  string
	}{
		{[]string{"enter"}, vt.Modes{}, "\r"},
		{[]string{"Enter"}, vt.Modes{}, "\r"},
		{[]string{"ctrl+c"}, vt.Modes{}, "\x03"},
		{[]string{"ctrl+C"}, vt.Modes{}, "\x03"},
		{[]string{"up"}, vt.Modes{}, "\x1b[A"},
		{[]string{"up"}, app, "\x1bOA"},
		{[]string{"ctrl+up"}, app, "\x1b[1;5A"},
		{[]string{"alt+x"}, vt.Modes{}, "\x1bx"},
		{[]string{"alt+shift+x"}, vt.Modes{}, "\x1bX"},
		{[]string{"shift+alt+x"}, vt.Modes{}, "\x1bX"},
		{[]string{"shift+a"}, vt.Modes{}, "A"},
		{[]string{"shift+tab"}, vt.Modes{}, "\x1b[Z"},
		{[]string{"f1"}, vt.Modes{}, "\x1bOP"},
		{[]string{"f5"}, vt.Modes{}, "\x1b[15~"},
		{[]string{"ctrl+f5"}, vt.Modes{}, "\x1b[15;5~"},
		{[]string{"pgup", "pgdown", "pgdn"}, vt.Modes{}, "\x1b[5~\x1b[6~\x1b[6~"},
		{[]string{"space"}, vt.Modes{}, " "},
		{[]string{"ctrl+space"}, vt.Modes{}, "\x00"},
		{[]string{"esc", "escape"}, vt.Modes{}, "\x1b\x1b"},
		{[]string{"backspace", "delete"}, vt.Modes{}, "\x7f\x1b[3~"},
		{[]string{"+", "alt++"}, vt.Modes{}, "+" + "\x1b+"},
		{[]string{"é", "🎉", "A", "?"}, vt.Modes{}, "é🎉A?"},
		{[]string{"l", "s", "enter"}, vt.Modes{}, "ls\r"},
	}
	for _, c := range cases {
		got, err := KeyNames(c.names, c.m)
		if err != nil {
			t.Errorf("%q: %v", c.names, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%q (app cursor %v): got %q, want %q", c.names, c.m.AppCursor, got, c.want)
		}
	}
}

func TestEncodeKeyNamesRefuses(t *testing.T) {
	cases := []struct {
		names []string
		says  string
	}{
		{[]string{"enter", "entr"}, `key 2: unknown key "entr"`},
		{[]string{""}, `unknown key ""`},
		{[]string{"ab"}, `unknown key "ab"`},
		{[]string{"ctrl+"}, `unknown key "ctrl+"`},
		{[]string{"x+"}, `unknown key "x+"`},
		{[]string{"hyper+a"}, `unknown modifier "hyper"`},
		{[]string{"ctrl+ctrl+a"}, `modifier ctrl twice`},
		{[]string{"ctrl+é"}, "a terminal sends nothing"},
		{[]string{"\xff"}, "unknown key"},
		{[]string{strings.Repeat("x", 1000)}, "…"},
	}
	for _, c := range cases {
		got, err := KeyNames(c.names, vt.Modes{})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%.40q: got %q, %v; want an error saying %q", c.names, got, err, c.says)
			continue
		}
		if got != nil {
			t.Errorf("%.40q: returned %q along with the error", c.names, got)
		}
		if len(err.Error()) > 200 {
			t.Errorf("%.40q: error of %d bytes quotes too much", c.names, len(err.Error()))
		}
	}
}

func TestEncodePasteData(t *testing.T) {
	if got := PasteData([]byte("a\nb"), vt.Modes{}); string(got) != "a\nb" {
		t.Errorf("without bracketed paste: got %q, want the bytes as sent", got)
	}
	got := PasteData([]byte("a\x1b[201~b"), vt.Modes{BracketedPaste: true})
	if string(got) != "\x1b[200~ab\x1b[201~" {
		t.Errorf("bracketed: got %q, want the text bracketed with its end marker removed", got)
	}
}

func FuzzEncodeKeyNames(f *testing.F) {
	for _, seed := range []string{"enter", "ctrl+c", "up", "alt+x", "f5", "space", "ctrl++", "+", "x+", "++", "é", "ctrl+alt+shift+delete", "\xff", ""} {
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, name string, appCursor bool) {
		got, err := KeyNames([]string{name, name}, vt.Modes{AppCursor: appCursor})
		if err != nil {
			if got != nil {
				t.Fatalf("%q: bytes %q with error %v", name, got, err)
			}
			if len(err.Error()) > 300 {
				t.Fatalf("%q: error of %d bytes", name, len(err.Error()))
			}
			return
		}
		if len(got) == 0 || len(got)%2 != 0 || string(got[:len(got)/2]) != string(got[len(got)/2:]) {
			t.Fatalf("%q twice: got %q, want the same bytes twice", name, got)
		}
		// The name Bubble Tea writes for the parsed key means the same key.
		k, _ := ParseKeyName(name)
		again, err := KeyNames([]string{k.String()}, vt.Modes{AppCursor: appCursor})
		if err != nil || string(again) != string(got[:len(got)/2]) {
			t.Fatalf("%q is written %q, which gives %q, %v; want %q", name, k.String(), again, err, got[:len(got)/2])
		}
	})
}
