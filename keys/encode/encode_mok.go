package encode

import (
	"strconv"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// Keys for a child that asked for xterm's modifyOtherKeys (CSI > 4 ; n m)
// and not the kitty protocol: a modified key whose legacy bytes lose a
// modifier is sent as CSI 27 ; modifiers ; character ~, as xterm sends it.
// Level 1 does so only where the legacy bytes lose a modifier (Shift+Enter,
// Ctrl+Enter, Ctrl+Tab, Ctrl+Shift+letter), so Ctrl+letter and Alt+key
// stay as they were; level 2 for every modified key but Shift with a
// character, which sends the shifted character. Keys with a CSI form of
// their own (arrows, function keys) are the same at every level.

// mokCodes are the keys modifyOtherKeys covers besides characters, by the
// character xterm names them with.
var mokCodes = map[rune]rune{
	tea.KeyEnter: '\r', tea.KeyTab: '\t', tea.KeyBackspace: 0x7f, tea.KeyEscape: 0x1b, tea.KeySpace: ' ',
}

func encodeModifyOther(dst []byte, k tea.Key, m vt.Modes) []byte {
	mods := k.Mod & (tea.ModShift | tea.ModAlt | tea.ModCtrl)
	ch, ok := mokCodes[k.Code]
	if !ok {
		if !keyChar(k.Code) || k.Code == ' ' {
			return encodeLegacy(dst, k, m)
		}
		ch = k.Code
		if mods.Contains(tea.ModShift) {
			if keyChar(k.ShiftedCode) {
				ch = k.ShiftedCode
			} else {
				ch = unicode.ToUpper(ch)
			}
		}
	}
	if mods == 0 || mods == tea.ModShift && !ok || !mokLoses(k, mods, m) && m.ModifyOtherKeys < 2 {
		return encodeLegacy(dst, k, m)
	}
	if k.Code == tea.KeyTab && mods == tea.ModShift {
		return encodeLegacy(dst, k, m) // CSI Z, as xterm keeps it
	}
	dst = append(dst, "\x1b[27;"...)
	dst = strconv.AppendInt(dst, int64(modParam(mods.Contains(tea.ModShift), mods.Contains(tea.ModAlt), mods.Contains(tea.ModCtrl))), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(ch), 10)
	return append(dst, '~')
}

// mokLoses reports whether k's legacy bytes are those of the key without
// its shift or its ctrl: that modifier would be lost.
func mokLoses(k tea.Key, mods tea.KeyMod, m vt.Modes) bool {
	k.Mod = mods
	own := string(encodeLegacy(nil, k, m))
	for _, drop := range []tea.KeyMod{tea.ModShift, tea.ModCtrl} {
		if !mods.Contains(drop) {
			continue
		}
		less := k
		less.Mod &^= drop
		if drop == tea.ModShift {
			less.Text, less.ShiftedCode = "", 0
		}
		if own == string(encodeLegacy(nil, less, m)) {
			return true
		}
	}
	return own == ""
}
