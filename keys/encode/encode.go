// Package encode turns what a user types into the bytes a pane's child
// expects: a key press (by the kitty keyboard protocol's flags the child
// set, by modifyOtherKeys, else as xterm sends it), a paste, a mouse
// report, a focus report, and keys named as `sandmux ctl keys` and the
// help overlay spell them.
//
// It owns the encoding alone: which keys a client typed is Bubble Tea's
// to decode and the UI's to route, and the modes a child asked for are
// its screen's (vt.Modes). It keeps no state.
package encode

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/session/vt"
)

// Keys to bytes for a child with TERM=xterm-256color, as xterm sends them.
// The modifier parameter of CSI sequences is 1 + shift + 2·alt + 4·ctrl.

// csiKeys are the keys sent as CSI/SS3 sequences: the final byte of the
// cursor-style form (ESC [ X, or ESC O X in application cursor mode, with
// ESC [ 1 ; m X when modified), or the number of the tilde form
// (ESC [ n ~, ESC [ n ; m ~).
var csiKeys = map[rune]struct {
	final  byte // cursor style when non-zero
	tilde  int  // tilde style when non-zero
	ss3Any bool // SS3 even outside application cursor mode (F1-F4)
}{
	tea.KeyUp: {final: 'A'}, tea.KeyDown: {final: 'B'}, tea.KeyRight: {final: 'C'}, tea.KeyLeft: {final: 'D'},
	tea.KeyHome: {final: 'H'}, tea.KeyEnd: {final: 'F'},
	tea.KeyF1: {final: 'P', ss3Any: true}, tea.KeyF2: {final: 'Q', ss3Any: true},
	tea.KeyF3: {final: 'R', ss3Any: true}, tea.KeyF4: {final: 'S', ss3Any: true},
	tea.KeyInsert: {tilde: 2}, tea.KeyDelete: {tilde: 3}, tea.KeyPgUp: {tilde: 5}, tea.KeyPgDown: {tilde: 6},
	tea.KeyF5: {tilde: 15}, tea.KeyF6: {tilde: 17}, tea.KeyF7: {tilde: 18}, tea.KeyF8: {tilde: 19},
	tea.KeyF9: {tilde: 20}, tea.KeyF10: {tilde: 21}, tea.KeyF11: {tilde: 23}, tea.KeyF12: {tilde: 24},
}

// keypadAliases maps keypad keys (reported with the kitty protocol) to the
// keys they act as outside application keypad mode.
var keypadAliases = map[rune]rune{
	tea.KeyKpUp: tea.KeyUp, tea.KeyKpDown: tea.KeyDown, tea.KeyKpLeft: tea.KeyLeft, tea.KeyKpRight: tea.KeyRight,
	tea.KeyKpHome: tea.KeyHome, tea.KeyKpEnd: tea.KeyEnd, tea.KeyKpPgUp: tea.KeyPgUp, tea.KeyKpPgDown: tea.KeyPgDown,
	tea.KeyKpInsert: tea.KeyInsert, tea.KeyKpDelete: tea.KeyDelete, tea.KeyKpEnter: tea.KeyEnter,
}

// ctrlSymbols are the C0 bytes of Ctrl with a symbol or digit, as xterm
// sends them.
var ctrlSymbols = map[rune]byte{
	' ': 0x00, '@': 0x00, '2': 0x00, '[': 0x1b, '3': 0x1b, '\\': 0x1c, '4': 0x1c,
	']': 0x1d, '5': 0x1d, '^': 0x1e, '6': 0x1e, '_': 0x1f, '7': 0x1f, '/': 0x1f, '?': 0x7f, '8': 0x7f,
}

// Key returns the bytes a terminal sends for a press of k to a
// child in modes m, appended to dst: by the kitty keyboard protocol's
// flags when the child asked for it (encode_kitty.go), by modifyOtherKeys
// when it asked for that (encode_mok.go), else the legacy way. It returns
// dst unchanged for keys with no encoding.
func Key(dst []byte, k tea.Key, m vt.Modes) []byte {
	switch {
	case m.KeyFlags != 0:
		return encodeKitty(dst, k, keyPress, m.KeyFlags, m)
	case m.ModifyOtherKeys != 0:
		return encodeModifyOther(dst, k, m)
	}
	return encodeLegacy(dst, k, m)
}

// encodeLegacy is Key for a child that asked for no keyboard
// enhancement: the bytes xterm sends.
func encodeLegacy(dst []byte, k tea.Key, m vt.Modes) []byte {
	ctrl, alt, shift := k.Mod.Contains(tea.ModCtrl), k.Mod.Contains(tea.ModAlt), k.Mod.Contains(tea.ModShift)
	code := k.Code
	if alias, ok := keypadAliases[code]; ok {
		code = alias
	}
	if s, ok := csiKeys[code]; ok {
		return appendCSIKey(dst, s.final, s.tilde, s.ss3Any, modParam(shift, alt, ctrl), m.AppCursor)
	}
	if alt {
		// Meta sends ESC before what the key would send without it.
		k.Mod &^= tea.ModAlt
		inner := encodeLegacy(nil, k, m)
		if len(inner) == 0 {
			return dst
		}
		return append(append(dst, 0x1b), inner...)
	}
	switch code {
	case tea.KeyEnter:
		return append(dst, '\r')
	case tea.KeyTab:
		if shift {
			return append(dst, "\x1b[Z"...)
		}
		return append(dst, '\t')
	case tea.KeyEscape:
		return append(dst, 0x1b)
	case tea.KeyBackspace:
		if ctrl {
			return append(dst, 0x08)
		}
		return append(dst, 0x7f)
	case tea.KeySpace:
		if ctrl {
			return append(dst, 0x00)
		}
		return append(dst, ' ')
	}
	if ctrl {
		switch {
		case code >= 'a' && code <= 'z':
			return append(dst, byte(code-'a'+1))
		case code >= 'A' && code <= 'Z':
			return append(dst, byte(code-'A'+1))
		}
		if b, ok := ctrlSymbols[code]; ok {
			return append(dst, b)
		}
	}
	if k.Text != "" {
		return append(dst, k.Text...)
	}
	if code >= ' ' && code != 0x7f && code <= 0x10ffff && !ctrl && k.Mod&^tea.ModShift == 0 {
		return append(dst, string(code)...)
	}
	return dst
}

func modParam(shift, alt, ctrl bool) int {
	m := 1
	if shift {
		m++
	}
	if alt {
		m += 2
	}
	if ctrl {
		m += 4
	}
	return m
}

func appendCSIKey(dst []byte, final byte, tilde int, ss3Any bool, mod int, appCursor bool) []byte {
	if tilde != 0 {
		dst = append(dst, "\x1b["...)
		dst = strconv.AppendInt(dst, int64(tilde), 10)
		if mod > 1 {
			dst = append(dst, ';')
			dst = strconv.AppendInt(dst, int64(mod), 10)
		}
		return append(dst, '~')
	}
	if mod > 1 {
		dst = append(dst, "\x1b[1;"...)
		dst = strconv.AppendInt(dst, int64(mod), 10)
		return append(dst, final)
	}
	if ss3Any || appCursor {
		return append(dst, 0x1b, 'O', final)
	}
	return append(dst, 0x1b, '[', final)
}

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// Paste returns pasted text as the child should get it: bracketed
// when it enabled bracketed paste (with any embedded end marker removed, so
// the paste cannot end early and inject keystrokes), else with line feeds
// as carriage returns, as typed.
func Paste(text string, m vt.Modes) []byte {
	if m.BracketedPaste {
		// Removing one marker can join the halves of another.
		for strings.Contains(text, pasteEnd) {
			text = strings.ReplaceAll(text, pasteEnd, "")
		}
		return []byte(pasteStart + text + pasteEnd)
	}
	text = strings.ReplaceAll(text, "\r\n", "\r")
	return []byte(strings.ReplaceAll(text, "\n", "\r"))
}

// MouseEvent is a mouse event already made relative to a pane's body.
type MouseEvent struct {
	X, Y    int // 0-based cell in the pane body
	Button  tea.MouseButton
	Mod     tea.KeyMod
	Release bool
	Motion  bool
}

// Mouse returns the report a child in modes m expects for e, or nil
// when it did not ask for this kind of event.
func Mouse(e MouseEvent, m vt.Modes) []byte {
	switch m.Mouse {
	case vt.MouseNone:
		return nil
	case vt.MouseX10:
		if e.Release || e.Motion {
			return nil
		}
	case vt.MouseNormal:
		if e.Motion {
			return nil
		}
	case vt.MouseButton:
		if e.Motion && e.Button == tea.MouseNone {
			return nil
		}
	}
	btn := e.Button
	if e.Release && m.MouseEncoding != vt.MouseEncodingSGR {
		btn = tea.MouseNone // X10-style releases do not say which button
	}
	b := ansi.EncodeMouseButton(btn, e.Motion, e.Mod.Contains(tea.ModShift), e.Mod.Contains(tea.ModAlt), e.Mod.Contains(tea.ModCtrl))
	if b == 0xff {
		return nil
	}
	if m.MouseEncoding == vt.MouseEncodingSGR {
		return []byte(ansi.MouseSgr(b, e.X, e.Y, e.Release))
	}
	// The X10 encoding has one byte per coordinate: xterm sends nothing
	// beyond column or row 223.
	if e.X > 222 || e.Y > 222 {
		return nil
	}
	return []byte(ansi.MouseX10(b, e.X, e.Y))
}

// Focus returns the focus report for a child that asked for them.
func Focus(focused bool, m vt.Modes) []byte {
	if !m.FocusEvents {
		return nil
	}
	if focused {
		return []byte("\x1b[I")
	}
	return []byte("\x1b[O")
}
