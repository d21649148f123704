package encode

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// Keys for a child that asked for the kitty keyboard protocol
// (https://sw.kovidgoyal.net/kitty/keyboard-protocol/), encoded by its
// flags whatever the user's terminal sent: Bubble Tea decodes the kitty
// protocol, modifyOtherKeys and legacy bytes alike into one tea.Key, so a
// key arrives at the best encoding the child asked for that the user's
// terminal could tell apart (TERMINAL.md lists what a legacy terminal
// cannot).

// keyEvent is what happened to a key.
type keyEvent uint8

const (
	keyPress keyEvent = 1 + iota
	keyRepeat
	keyRelease
)

// kittyFunc is how the protocol encodes a functional key: CSI number ;
// modifiers final, the number 1 left out when nothing follows it for the
// cursor-style finals.
type kittyFunc struct {
	num   int
	final byte // 'u', '~', or the letter of the cursor style
}

// kittyFuncs are the functional keys a terminal reports, as the
// protocol's table numbers them. F3 is CSI 13 ~: CSI R is a cursor
// position report.
var kittyFuncs = map[rune]kittyFunc{
	tea.KeyEscape: {27, 'u'}, tea.KeyEnter: {13, 'u'}, tea.KeyTab: {9, 'u'}, tea.KeyBackspace: {127, 'u'},
	tea.KeyInsert: {2, '~'}, tea.KeyDelete: {3, '~'}, tea.KeyPgUp: {5, '~'}, tea.KeyPgDown: {6, '~'},
	tea.KeyLeft: {1, 'D'}, tea.KeyRight: {1, 'C'}, tea.KeyUp: {1, 'A'}, tea.KeyDown: {1, 'B'},
	tea.KeyHome: {1, 'H'}, tea.KeyEnd: {1, 'F'},
	tea.KeyF1: {1, 'P'}, tea.KeyF2: {1, 'Q'}, tea.KeyF3: {13, '~'}, tea.KeyF4: {1, 'S'},
	tea.KeyF5: {15, '~'}, tea.KeyF6: {17, '~'}, tea.KeyF7: {18, '~'}, tea.KeyF8: {19, '~'},
	tea.KeyF9: {20, '~'}, tea.KeyF10: {21, '~'}, tea.KeyF11: {23, '~'}, tea.KeyF12: {24, '~'},
	tea.KeyKp0: {57399, 'u'}, tea.KeyKp1: {57400, 'u'}, tea.KeyKp2: {57401, 'u'}, tea.KeyKp3: {57402, 'u'},
	tea.KeyKp4: {57403, 'u'}, tea.KeyKp5: {57404, 'u'}, tea.KeyKp6: {57405, 'u'}, tea.KeyKp7: {57406, 'u'},
	tea.KeyKp8: {57407, 'u'}, tea.KeyKp9: {57408, 'u'}, tea.KeyKpDecimal: {57409, 'u'},
	tea.KeyKpDivide: {57410, 'u'}, tea.KeyKpMultiply: {57411, 'u'}, tea.KeyKpMinus: {57412, 'u'},
	tea.KeyKpPlus: {57413, 'u'}, tea.KeyKpEnter: {57414, 'u'}, tea.KeyKpEqual: {57415, 'u'},
	tea.KeyKpSep: {57416, 'u'}, tea.KeyKpLeft: {57417, 'u'}, tea.KeyKpRight: {57418, 'u'},
	tea.KeyKpUp: {57419, 'u'}, tea.KeyKpDown: {57420, 'u'}, tea.KeyKpPgUp: {57421, 'u'},
	tea.KeyKpPgDown: {57422, 'u'}, tea.KeyKpHome: {57423, 'u'}, tea.KeyKpEnd: {57424, 'u'},
	tea.KeyKpInsert: {57425, 'u'}, tea.KeyKpDelete: {57426, 'u'}, tea.KeyKpBegin: {57427, 'u'},
}

// kittyModBits are the protocol's modifier bits, from Bubble Tea's.
var kittyModBits = [...]struct {
	tea  tea.KeyMod
	bits int
}{
	{tea.ModShift, 1}, {tea.ModAlt, 2}, {tea.ModCtrl, 4}, {tea.ModSuper, 8},
	{tea.ModHyper, 16}, {tea.ModMeta, 32}, {tea.ModCapsLock, 64}, {tea.ModNumLock, 128},
}

// kittyLocks are the lock modifiers: a text key with only them (and
// shift) still sends its text unless every key is an escape code.
const kittyLocks = 64 | 128

func kittyMods(m tea.KeyMod) int {
	bits := 0
	for _, b := range kittyModBits {
		if m.Contains(b.tea) {
			bits |= b.bits
		}
	}
	return bits
}

// encodeKitty appends what a terminal sends for event ev of key k to a
// child whose kitty flags are fl (non-zero).
func encodeKitty(dst []byte, k tea.Key, ev keyEvent, fl vt.KeyFlags, m vt.Modes) []byte {
	all := fl&vt.KeyAllAsEscapes != 0
	if fl&vt.KeyEventTypes == 0 {
		if ev == keyRelease {
			return dst
		}
		ev = keyPress
	}
	mods := kittyMods(k.Mod)
	if f, ok := kittyFuncs[k.Code]; ok {
		return encodeKittyFunc(dst, k, f, mods, ev, all, m)
	}
	code, shifted := k.Code, k.ShiftedCode
	if code >= 'A' && code <= 'Z' {
		// The key is its unshifted character; the shift is a modifier.
		code, shifted, mods = unicode.ToLower(code), code, mods|1
	}
	if !keyChar(code) {
		return dst // no key of the protocol
	}
	text := kittyText(k, code, shifted, mods)
	if !all && text != "" && ev != keyRelease {
		// Keys that make text send it, as in legacy mode; their
		// release has no legacy form.
		return append(dst, text...)
	}
	if fl&vt.KeyAssociatedText == 0 || !all && ev != keyRelease {
		text = ""
	}
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	if fl&vt.KeyAlternates != 0 {
		dst = appendAlternates(dst, code, shifted, k.BaseCode, mods)
	}
	dst = appendKittyMods(dst, mods, ev, text != "")
	if text != "" {
		dst = append(dst, ';')
		sep := false
		for _, r := range text {
			if !keyChar(r) {
				continue // the text of a key holds no controls
			}
			if sep {
				dst = append(dst, ':')
			}
			dst, sep = strconv.AppendInt(dst, int64(r), 10), true
		}
	}
	return append(dst, 'u')
}

// kittyText is the text key k makes, "" when a modifier other than shift
// keeps it from making any.
func kittyText(k tea.Key, code, shifted rune, mods int) string {
	if mods&^(1|kittyLocks) != 0 {
		return ""
	}
	if k.Text != "" {
		return k.Text
	}
	if mods&1 != 0 && shifted != 0 {
		return string(shifted)
	}
	if mods&1 != 0 {
		return string(unicode.ToUpper(code))
	}
	return string(code)
}

// encodeKittyFunc encodes a functional key. Enter, Tab and Backspace
// unmodified keep their legacy bytes unless every key is an escape
// code, and then send no release, so that a shell still works after a
// program that set the protocol died.
func encodeKittyFunc(dst []byte, k tea.Key, f kittyFunc, mods int, ev keyEvent, all bool, m vt.Modes) []byte {
	if !all && mods == 0 {
		switch k.Code {
		case tea.KeyEnter, tea.KeyTab, tea.KeyBackspace:
			if ev == keyRelease {
				return dst
			}
			return encodeLegacy(dst, k, m)
		}
	}
	if !all && mods&^(1|kittyLocks) == 0 && k.Text != "" && f.final == 'u' && k.Code != tea.KeyEscape {
		// A keypad key that makes text sends the text.
		if ev == keyRelease {
			return dst
		}
		return append(dst, k.Text...)
	}
	dst = append(dst, "\x1b["...)
	if f.num != 1 || mods != 0 || ev != keyPress {
		dst = strconv.AppendInt(dst, int64(f.num), 10)
	}
	dst = appendKittyMods(dst, mods, ev, false)
	return append(dst, f.final)
}

// appendAlternates adds the shifted key (when shift is held) and the key
// of the standard layout (when it differs).
func appendAlternates(dst []byte, code, shifted, base rune, mods int) []byte {
	hasShifted := mods&1 != 0 && keyChar(shifted) && shifted != code
	hasBase := keyChar(base) && base != code
	if hasShifted || hasBase {
		dst = append(dst, ':')
	}
	if hasShifted {
		dst = strconv.AppendInt(dst, int64(shifted), 10)
	}
	if hasBase {
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(base), 10)
	}
	return dst
}

// appendKittyMods adds ; modifiers [: event], or only the ; that keeps
// the text field in place.
func appendKittyMods(dst []byte, mods int, ev keyEvent, textFollows bool) []byte {
	switch {
	case mods != 0 || ev != keyPress:
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(mods+1), 10)
		if ev != keyPress {
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(ev), 10)
		}
	case textFollows:
		dst = append(dst, ';')
	}
	return dst
}

// keyChar reports whether r is a character a key can stand for.
func keyChar(r rune) bool {
	return r >= ' ' && r != 0x7f && (r < 0x80 || r >= 0xa0) && utf8.ValidRune(r)
}
