package ui

import "testing"

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
