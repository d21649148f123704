package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Keys are read as a config writes them and returned as Bubble Tea
// spells them, idempotently; anything else is refused.
func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"ctrl+b": "ctrl+b", "Ctrl+B": "ctrl+b", " ctrl+a ": "ctrl+a", "alt+ctrl+x": "ctrl+alt+x",
		"ctrl++": "ctrl++", "+": "+", "ctrl+space": "ctrl+space", "f12": "f12", "`": "`", "super+shift+é": "shift+super+é",
	} {
		got, err := NormalizeKey(in)
		if err != nil || got != want {
			t.Errorf("NormalizeKey(%q) = %q, %v; want %q", in, got, err, want)
		}
		if again, err := NormalizeKey(got); again != got || err != nil {
			t.Errorf("NormalizeKey(%q) = %q, %v; not idempotent", got, again, err)
		}
	}
	for _, in := range []string{"", "ctrl+", "ctrl+ ", "b+ctrl", "ctrl+shift", "hyper+ctrl+ctrl+a", "ctrl+\x01"} {
		if got, err := NormalizeKey(in); err == nil {
			t.Errorf("NormalizeKey(%q) = %q, want an error", in, got)
		}
	}
}

// A binding's key keeps a character's case, as Bubble Tea reports a
// typed capital; a modifier makes it the letter's key.
func TestNormalizeBinding(t *testing.T) {
	for in, want := range map[string]string{
		"C": "C", "c": "c", "shift+c": "C", "Shift+C": "C", "ctrl+B": "ctrl+b", "Alt+X": "alt+x",
		"F5": "f5", "Enter": "enter", "alt+Left": "alt+left", "'": "'", "ctrl++": "ctrl++", "é": "é",
	} {
		got, err := NormalizeBinding(in)
		if err != nil || got != want {
			t.Errorf("NormalizeBinding(%q) = %q, %v; want %q", in, got, err, want)
		}
		if again, err := NormalizeBinding(got); again != got || err != nil {
			t.Errorf("NormalizeBinding(%q) = %q, %v; not idempotent", got, again, err)
		}
	}
	for _, in := range []string{"", "ctrl+", "cc", "b+ctrl", "ctrl+shift"} {
		if got, err := NormalizeBinding(in); err == nil {
			t.Errorf("NormalizeBinding(%q) = %q, want an error", in, got)
		}
	}
}

// Escape then the prefix, read at once, arrive as alt+prefix: they act as
// the two keys, closing the list and starting a command.
func TestEscapeThenPrefixInOneRead(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	press(m, "w")
	if m.lv().modalKind() != modalList {
		t.Fatal("test setup: prefix w did not open the list")
	}
	send(m, tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl | tea.ModAlt})
	if m.lv().modalKind() != modalNone || !m.lv().prefixPending {
		t.Fatalf("alt+ctrl+b: modal %v, prefix pending %v; want the list closed and the prefix pending", m.lv().modalKind(), m.lv().prefixPending)
	}
	press(m, "right")
	if m.lv().focusIndex() != 1 {
		t.Errorf("the command after it did not run: focus %d", m.lv().focusIndex())
	}
}

// FuzzNormalizeBinding: a binding's key is normalised once for all
// (normalising it again changes nothing), is never longer than what was
// written, and is refused with the error that says what a key is.
func FuzzNormalizeBinding(f *testing.F) {
	for _, s := range []string{"C", "shift+c", "ctrl+B", "alt++", "F5", "ctrl+shift+é", " x ", "+", "ctrl+", "a+b+c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeBinding(s)
		if err != nil {
			if !strings.Contains(err.Error(), "is not a key") {
				t.Fatalf("NormalizeBinding(%q): %v", s, err)
			}
			return
		}
		if again, err := NormalizeBinding(got); err != nil || again != got {
			t.Fatalf("NormalizeBinding(%q) = %q, then %q, %v", s, got, again, err)
		}
		if len(got) > len(s)+len("shift+") {
			t.Fatalf("NormalizeBinding(%q) = %q grew", s, got)
		}
	})
}
