// Package keys is how sandmux names keys and binds them: a key as a
// config or a binding writes it, normalised to the spelling a client's
// decoder reports (NormalizeKey, NormalizeBinding), the default prefix,
// a [keys] Binding, and the names of the actions a binding may run.
//
// It is a leaf with no terminal library in it, so that the config can
// check keys without the UI. It does not say what an action does (the
// UI's action table does, by these names), nor what bytes a key sends
// to a pane (package keys/encode).
package keys

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults of the UI's settings, which the config's defaults refer to.
const (
	DefaultPrefix = "ctrl+b"
	// DefaultFPS is no key's, but the UI's one other default the config
	// shares: it lives here so the config needs no other package of the UI.
	DefaultFPS = 60
)

// Key names as Bubble Tea's Keystroke spells them, modifiers in its order.
var (
	keyModifiers = []string{"ctrl", "alt", "shift", "meta", "hyper", "super"}
	keyNames     = []string{"enter", "tab", "backspace", "esc", "space", "up", "down", "left", "right",
		"home", "end", "pgup", "pgdown", "insert", "delete", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8",
		"f9", "f10", "f11", "f12"}
)

// NormalizeKey checks a key as a config names one ("Ctrl+B") and returns
// it as Bubble Tea reports it ("ctrl+b"), so that the key map can compare
// strings. The error says what a key looks like.
func NormalizeKey(s string) (string, error) { return normalizeKey(s, false) }

// NormalizeBinding is NormalizeKey for a [keys] binding, where a
// character keeps its case ("C" is shift+c, as Bubble Tea reports it),
// and shift+ on a letter alone is the capital itself.
func NormalizeBinding(s string) (string, error) { return normalizeKey(s, true) }

func normalizeKey(s string, keepCase bool) (string, error) {
	name := strings.TrimSpace(s)
	var mods []string
	// The key is after the last "+", except in "ctrl++", where it is "+".
	if i := strings.LastIndex(strings.TrimSuffix(name, "+"), "+"); i >= 0 {
		mods, name = strings.Split(strings.ToLower(name[:i]), "+"), name[i+1:]
	}
	if !keepCase || slices.Contains(keyNames, strings.ToLower(name)) {
		name = strings.ToLower(name)
	}
	bad := fmt.Errorf(`is not a key (write e.g. "ctrl+b": modifiers %s, then a character or a name such as %s)`,
		strings.Join(keyModifiers, ", "), strings.Join(keyNames[:5], ", "))
	if r, size := utf8.DecodeRuneInString(name); !slices.Contains(keyNames, name) && (name == "" || size != len(name) || r == ' ' || !unicode.IsGraphic(r)) {
		return s, bad
	}
	seen := map[string]bool{}
	for _, m := range mods {
		if !slices.Contains(keyModifiers, m) || seen[m] {
			return s, bad
		}
		seen[m] = true
	}
	if r, size := utf8.DecodeRuneInString(name); keepCase && size == len(name) && unicode.IsLetter(r) {
		switch {
		case len(seen) == 1 && seen["shift"]:
			return string(unicode.ToUpper(r)), nil // as a terminal types it
		case len(seen) > 0:
			name = strings.ToLower(name) // ctrl+B is ctrl+b, as Bubble Tea reports it
		}
	}
	var out []string
	for _, m := range keyModifiers {
		if seen[m] {
			out = append(out, m)
		}
	}
	return strings.Join(append(out, name), "+"), nil
}
