package encode

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// Key names as Bubble Tea v2 writes them (tea.Key.String), so that
// `sandmux ctl keys` takes the spelling the help overlay shows: "enter",
// "ctrl+c", "alt+x", "shift+tab", "f5", "space", or one character.

// namedKeys are the keys written as words, limited to those a terminal
// sends bytes for; a few spellings other tools use are accepted too.
var namedKeys = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
	"esc": tea.KeyEscape, "escape": tea.KeyEscape, "space": tea.KeySpace,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"home": tea.KeyHome, "end": tea.KeyEnd, "insert": tea.KeyInsert, "delete": tea.KeyDelete,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "pgdn": tea.KeyPgDown,
	"f1": tea.KeyF1, "f2": tea.KeyF2, "f3": tea.KeyF3, "f4": tea.KeyF4,
	"f5": tea.KeyF5, "f6": tea.KeyF6, "f7": tea.KeyF7, "f8": tea.KeyF8,
	"f9": tea.KeyF9, "f10": tea.KeyF10, "f11": tea.KeyF11, "f12": tea.KeyF12,
}

// keyMods are the modifiers a terminal can send, by name.
var keyMods = map[string]tea.KeyMod{"ctrl": tea.ModCtrl, "alt": tea.ModAlt, "shift": tea.ModShift}

// maxKeyNameQuote bounds how much of a refused name an error quotes.
const maxKeyNameQuote = 24

// KeyNames returns the bytes a terminal sends, to a child in modes
// m, for each named key pressed in turn. An unknown name, or a key no
// terminal sends anything for (ctrl+é), is an error naming it; nothing
// is returned then, so a typo is never half typed.
func KeyNames(names []string, m vt.Modes) ([]byte, error) {
	var out []byte
	for i, name := range names {
		k, err := ParseKeyName(name)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		n := len(out)
		out = Key(out, k, m)
		if len(out) == n {
			return nil, fmt.Errorf("key %d, %s: a terminal sends nothing for it; drop the modifier, or send the bytes with sandmux ctl send", i+1, quoteKeyName(name))
		}
	}
	return out, nil
}

// ParseKeyName reads one key name: modifiers joined by "+" (ctrl, alt,
// shift, in any order), then a named key or one character. "+" itself is
// "+" alone or last ("ctrl++"). Names and modifiers ignore case; a single
// character keeps its own.
func ParseKeyName(name string) (tea.Key, error) {
	mods, key := splitKeyName(name)
	code, named := namedKeys[strings.ToLower(key)]
	r, size := utf8.DecodeRuneInString(key)
	if !named && (key == "" || size != len(key) || r == utf8.RuneError) {
		return tea.Key{}, fmt.Errorf("unknown key %s: use a name such as enter, esc, tab, up, pgup, f5, space or ctrl+c, or one character", quoteKeyName(name))
	}
	var k tea.Key
	for _, mod := range mods {
		bit, ok := keyMods[strings.ToLower(mod)]
		if !ok {
			return tea.Key{}, fmt.Errorf("%s: unknown modifier %s: use ctrl, alt or shift, as in ctrl+c", quoteKeyName(name), quoteKeyName(mod))
		}
		if k.Mod.Contains(bit) {
			return tea.Key{}, fmt.Errorf("%s: modifier %s twice: name it once", quoteKeyName(name), mod)
		}
		k.Mod |= bit
	}
	if named {
		k.Code = code
		if code == tea.KeySpace && !k.Mod.Contains(tea.ModCtrl) {
			k.Text = " "
		}
		return k, nil
	}
	k.Code = r
	if k.Mod.Contains(tea.ModShift) && !k.Mod.Contains(tea.ModCtrl) {
		k.Code = unicode.ToUpper(r) // as the terminal would type it, alt or not
	}
	if k.Mod&^tea.ModShift == 0 {
		// Text only for what types as itself, as Bubble Tea reports keys.
		k.Text = string(k.Code)
	}
	return k, nil
}

// splitKeyName splits "ctrl+alt+x" into its modifiers and its key, where
// the key may be "+" itself.
func splitKeyName(name string) (mods []string, key string) {
	rest := name
	if strings.HasSuffix(rest, "+") {
		rest, key = rest[:len(rest)-1], "+"
		if rest == "" {
			return nil, key
		}
		if !strings.HasSuffix(rest, "+") {
			// "x+" is no key name; splitting on as usual reports it.
			rest, key = name, ""
		} else {
			rest = rest[:len(rest)-1]
			return strings.Split(rest, "+"), key
		}
	}
	parts := strings.Split(rest, "+")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// quoteKeyName quotes a name for an error, escaped and cut short, since it
// is whatever a client sent.
func quoteKeyName(s string) string {
	if len(s) > maxKeyNameQuote {
		cut := maxKeyNameQuote
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// PasteData returns data as `ctl send --paste` types it: bracketed,
// with any embedded end marker removed, when the child in modes m asked
// for bracketed paste; else the bytes as they are, since a script that
// sends raw bytes means them.
func PasteData(data []byte, m vt.Modes) []byte {
	if !m.BracketedPaste {
		return data
	}
	return Paste(string(data), m)
}
