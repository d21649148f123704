package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

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
