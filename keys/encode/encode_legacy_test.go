package encode

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

var updateLegacy = flag.Bool("update-legacy", false, "rewrite testdata/legacy_keys.txt from the encoder")

// legacyKeys is every key sandmux encodes, as a terminal without any
// keyboard enhancement reports it, under every modifier: the keys whose
// bytes a legacy program (cat -v, a shell) must keep receiving.
func legacyKeys() []tea.Key {
	codes := []rune{tea.KeyEnter, tea.KeyTab, tea.KeyEscape, tea.KeyBackspace, tea.KeySpace,
		tea.KeyUp, tea.KeyDown, tea.KeyRight, tea.KeyLeft, tea.KeyHome, tea.KeyEnd,
		tea.KeyInsert, tea.KeyDelete, tea.KeyPgUp, tea.KeyPgDown,
		tea.KeyF1, tea.KeyF2, tea.KeyF3, tea.KeyF4, tea.KeyF5, tea.KeyF6,
		tea.KeyF7, tea.KeyF8, tea.KeyF9, tea.KeyF10, tea.KeyF11, tea.KeyF12,
		tea.KeyKpEnter, tea.KeyKpUp, tea.KeyKpHome, tea.KeyKpDelete}
	for r := rune('!'); r <= '~'; r++ {
		codes = append(codes, r)
	}
	codes = append(codes, 'é', '€', '🎉')
	var keys []tea.Key
	for _, c := range codes {
		for mod := tea.KeyMod(0); mod < 8; mod++ {
			m := tea.KeyMod(0)
			if mod&1 != 0 {
				m |= tea.ModShift
			}
			if mod&2 != 0 {
				m |= tea.ModAlt
			}
			if mod&4 != 0 {
				m |= tea.ModCtrl
			}
			k := tea.Key{Code: c, Mod: m}
			if c == tea.KeySpace && m&^tea.ModShift == 0 {
				k.Text = " "
			} else if c > ' ' && c < tea.KeyExtended && m&^(tea.ModShift) == 0 {
				k.Text = string(c)
			}
			keys = append(keys, k)
		}
	}
	return keys
}

func legacyTable() string {
	var b strings.Builder
	for _, app := range []bool{false, true} {
		m := vt.Modes{AppCursor: app}
		for _, k := range legacyKeys() {
			fmt.Fprintf(&b, "app=%v %q %q\n", app, k.Keystroke(), Key(nil, k, m))
		}
	}
	return b.String()
}

// A child that asked for no keyboard enhancement gets, for every key, the
// bytes sandmux sent before the kitty protocol and modifyOtherKeys were
// encoded (the table was written by that encoder).
func TestContract_E2_LegacyBytesUnchanged(t *testing.T) {
	const path = "testdata/legacy_keys.txt"
	got := legacyTable()
	if *updateLegacy {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (write it with -update-legacy)", path, err)
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
	for i := range gl {
		if gl[i] != wl[i] {
			t.Errorf("line %d: got %s, want %s", i+1, gl[i], wl[i])
		}
	}
}
