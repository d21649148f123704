package encode

import (
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

func TestEncodeKey(t *testing.T) {
	appCursor := vt.Modes{AppCursor: true}
	cases := []struct {
		name string
		key  tea.Key
		m    vt.Modes
		want string
	}{
		{"text", tea.Key{Code: 'a', Text: "a"}, vt.Modes{}, "a"},
		{"shifted text", tea.Key{Code: 'a', Mod: tea.ModShift, Text: "A"}, vt.Modes{}, "A"},
		{"non-ASCII text", tea.Key{Code: 'é', Text: "é"}, vt.Modes{}, "é"},
		{"emoji text", tea.Key{Code: '🎉', Text: "🎉"}, vt.Modes{}, "🎉"},
		{"enter", tea.Key{Code: tea.KeyEnter}, vt.Modes{}, "\r"},
		{"tab", tea.Key{Code: tea.KeyTab}, vt.Modes{}, "\t"},
		{"shift+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}, vt.Modes{}, "\x1b[Z"},
		{"esc", tea.Key{Code: tea.KeyEscape}, vt.Modes{}, "\x1b"},
		{"backspace", tea.Key{Code: tea.KeyBackspace}, vt.Modes{}, "\x7f"},
		{"ctrl+backspace", tea.Key{Code: tea.KeyBackspace, Mod: tea.ModCtrl}, vt.Modes{}, "\x08"},
		{"space", tea.Key{Code: tea.KeySpace, Text: " "}, vt.Modes{}, " "},
		{"ctrl+space", tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}, vt.Modes{}, "\x00"},
		{"ctrl+a", tea.Key{Code: 'a', Mod: tea.ModCtrl}, vt.Modes{}, "\x01"},
		{"ctrl+c", tea.Key{Code: 'c', Mod: tea.ModCtrl}, vt.Modes{}, "\x03"},
		{"ctrl+z", tea.Key{Code: 'z', Mod: tea.ModCtrl}, vt.Modes{}, "\x1a"},
		{"ctrl+i as reported by v2", tea.Key{Code: 'i', Mod: tea.ModCtrl}, vt.Modes{}, "\t"},
		{"ctrl+m as reported by v2", tea.Key{Code: 'm', Mod: tea.ModCtrl}, vt.Modes{}, "\r"},
		{"ctrl+[", tea.Key{Code: '[', Mod: tea.ModCtrl}, vt.Modes{}, "\x1b"},
		{"ctrl+\\", tea.Key{Code: '\\', Mod: tea.ModCtrl}, vt.Modes{}, "\x1c"},
		{"ctrl+]", tea.Key{Code: ']', Mod: tea.ModCtrl}, vt.Modes{}, "\x1d"},
		{"ctrl+^", tea.Key{Code: '^', Mod: tea.ModCtrl}, vt.Modes{}, "\x1e"},
		{"ctrl+_", tea.Key{Code: '_', Mod: tea.ModCtrl}, vt.Modes{}, "\x1f"},
		{"alt+x", tea.Key{Code: 'x', Mod: tea.ModAlt, Text: "x"}, vt.Modes{}, "\x1bx"},
		{"alt+ctrl+x", tea.Key{Code: 'x', Mod: tea.ModAlt | tea.ModCtrl}, vt.Modes{}, "\x1b\x18"},
		{"alt+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModAlt}, vt.Modes{}, "\x1b\r"},
		{"up", tea.Key{Code: tea.KeyUp}, vt.Modes{}, "\x1b[A"},
		{"down app cursor", tea.Key{Code: tea.KeyDown}, appCursor, "\x1bOB"},
		{"shift+right", tea.Key{Code: tea.KeyRight, Mod: tea.ModShift}, vt.Modes{}, "\x1b[1;2C"},
		{"ctrl+left in app cursor", tea.Key{Code: tea.KeyLeft, Mod: tea.ModCtrl}, appCursor, "\x1b[1;5D"},
		{"alt+up", tea.Key{Code: tea.KeyUp, Mod: tea.ModAlt}, vt.Modes{}, "\x1b[1;3A"},
		{"ctrl+alt+shift+up", tea.Key{Code: tea.KeyUp, Mod: tea.ModAlt | tea.ModCtrl | tea.ModShift}, vt.Modes{}, "\x1b[1;8A"},
		{"home", tea.Key{Code: tea.KeyHome}, vt.Modes{}, "\x1b[H"},
		{"end app cursor", tea.Key{Code: tea.KeyEnd}, appCursor, "\x1bOF"},
		{"shift+home", tea.Key{Code: tea.KeyHome, Mod: tea.ModShift}, vt.Modes{}, "\x1b[1;2H"},
		{"insert", tea.Key{Code: tea.KeyInsert}, vt.Modes{}, "\x1b[2~"},
		{"delete", tea.Key{Code: tea.KeyDelete}, vt.Modes{}, "\x1b[3~"},
		{"ctrl+delete", tea.Key{Code: tea.KeyDelete, Mod: tea.ModCtrl}, vt.Modes{}, "\x1b[3;5~"},
		{"pgup", tea.Key{Code: tea.KeyPgUp}, vt.Modes{}, "\x1b[5~"},
		{"pgdown", tea.Key{Code: tea.KeyPgDown}, vt.Modes{}, "\x1b[6~"},
		{"f1", tea.Key{Code: tea.KeyF1}, vt.Modes{}, "\x1bOP"},
		{"f4", tea.Key{Code: tea.KeyF4}, vt.Modes{}, "\x1bOS"},
		{"shift+f1", tea.Key{Code: tea.KeyF1, Mod: tea.ModShift}, vt.Modes{}, "\x1b[1;2P"},
		{"f5", tea.Key{Code: tea.KeyF5}, vt.Modes{}, "\x1b[15~"},
		{"f8", tea.Key{Code: tea.KeyF8}, vt.Modes{}, "\x1b[19~"},
		{"f11", tea.Key{Code: tea.KeyF11}, vt.Modes{}, "\x1b[23~"},
		{"f12", tea.Key{Code: tea.KeyF12}, vt.Modes{}, "\x1b[24~"},
		{"ctrl+f5", tea.Key{Code: tea.KeyF5, Mod: tea.ModCtrl}, vt.Modes{}, "\x1b[15;5~"},
		{"keypad up (kitty)", tea.Key{Code: tea.KeyKpUp}, vt.Modes{}, "\x1b[A"},
		{"keypad enter (kitty)", tea.Key{Code: tea.KeyKpEnter}, vt.Modes{}, "\r"},
	}
	for _, c := range cases {
		if got := string(Key(nil, c.key, c.m)); got != c.want {
			t.Errorf("%s: Key(%v) = %q, want %q", c.name, c.key, got, c.want)
		}
	}
}

func TestEncodePaste(t *testing.T) {
	plain, bracketed := vt.Modes{}, vt.Modes{BracketedPaste: true}
	if got := string(Paste("a\nb\r\nc", plain)); got != "a\rb\rc" {
		t.Errorf("plain paste = %q", got)
	}
	if got := string(Paste("x\x1b[201~rm -rf ~\n", bracketed)); got != "\x1b[200~xrm -rf ~\n\x1b[201~" {
		t.Errorf("bracketed paste = %q: an embedded end marker must not end the paste", got)
	}
}

func TestEncodeMouse(t *testing.T) {
	sgr := vt.Modes{Mouse: vt.MouseNormal, MouseEncoding: vt.MouseEncodingSGR}
	x10 := vt.Modes{Mouse: vt.MouseNormal}
	cases := []struct {
		name string
		e    MouseEvent
		m    vt.Modes
		want string
	}{
		{"not enabled", MouseEvent{X: 1, Y: 1, Button: tea.MouseLeft}, vt.Modes{}, ""},
		{"sgr press", MouseEvent{X: 4, Y: 2, Button: tea.MouseLeft}, sgr, "\x1b[<0;5;3M"},
		{"sgr release", MouseEvent{X: 4, Y: 2, Button: tea.MouseLeft, Release: true}, sgr, "\x1b[<0;5;3m"},
		{"sgr wheel up", MouseEvent{Button: tea.MouseWheelUp}, sgr, "\x1b[<64;1;1M"},
		{"sgr ctrl right", MouseEvent{Button: tea.MouseRight, Mod: tea.ModCtrl}, sgr, "\x1b[<18;1;1M"},
		{"x10 press", MouseEvent{X: 0, Y: 0, Button: tea.MouseLeft}, x10, "\x1b[M !!"},
		{"x10 release", MouseEvent{X: 0, Y: 0, Button: tea.MouseLeft, Release: true}, x10, "\x1b[M#!!"},
		{"x10 beyond 223", MouseEvent{X: 300, Y: 0, Button: tea.MouseLeft}, x10, ""},
		{"motion needs 1002/1003", MouseEvent{Button: tea.MouseLeft, Motion: true}, sgr, ""},
		{"drag in 1002", MouseEvent{Button: tea.MouseLeft, Motion: true}, vt.Modes{Mouse: vt.MouseButton, MouseEncoding: vt.MouseEncodingSGR}, "\x1b[<32;1;1M"},
		{"hover in 1003", MouseEvent{Button: tea.MouseNone, Motion: true}, vt.Modes{Mouse: vt.MouseAny, MouseEncoding: vt.MouseEncodingSGR}, "\x1b[<35;1;1M"},
		{"x10 mode: no release", MouseEvent{Button: tea.MouseLeft, Release: true}, vt.Modes{Mouse: vt.MouseX10}, ""},
	}
	for _, c := range cases {
		if got := string(Mouse(c.e, c.m)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEncodeFocus(t *testing.T) {
	if Focus(true, vt.Modes{}) != nil {
		t.Error("focus sent to a child that did not ask")
	}
	if got := string(Focus(false, vt.Modes{FocusEvents: true})); got != "\x1b[O" {
		t.Errorf("blur = %q", got)
	}
}

// FuzzEncodeKey: any key in any modes encodes without panicking, to valid
// UTF-8 when the key's text is, and text keys are never dropped.
func FuzzEncodeKey(f *testing.F) {
	f.Add(int32('a'), "a", uint16(0), false, false)
	f.Add(int32(tea.KeyUp), "", uint16(tea.ModCtrl), true, false)
	f.Add(int32('x'), "x", uint16(tea.ModAlt), false, true)
	f.Fuzz(func(t *testing.T, code int32, text string, mod uint16, appCursor, paste bool) {
		k := tea.Key{Code: rune(code), Text: text, Mod: tea.KeyMod(mod)}
		m := vt.Modes{AppCursor: appCursor, BracketedPaste: paste}
		out := Key(nil, k, m)
		if utf8.ValidString(text) && !utf8.Valid(out) {
			t.Errorf("Key(%#v) = %q: invalid UTF-8", k, out)
		}
		if text != "" && k.Mod == 0 && len(out) == 0 {
			t.Errorf("Key dropped text %q", text)
		}
		p := Paste(text, m)
		if paste && (len(p) < len(pasteStart)+len(pasteEnd) || strings.Index(string(p), pasteEnd) != len(p)-len(pasteEnd)) {
			t.Errorf("bracketed paste %q does not end exactly at its one end marker", p)
		}
	})
}
