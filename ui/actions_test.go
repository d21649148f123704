package ui

import (
	"slices"
	"strings"

	"testing"

	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/mux"
)

// Help lists every action with the keys bound to it: by default each
// action's own, and after [keys] the bound ones, root ones apart.
func TestHelpListsEveryBinding(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 1, 200, 60)
	help := m.lv().helpText()
	for _, a := range actions {
		if a.group != "" {
			continue
		}
		keys := strings.Join(a.keys, " ")
		if a.name == actionSendPrefix {
			keys = "ctrl+b"
		}
		if line := "  " + keys; !strings.Contains(help, line+strings.Repeat(" ", max(1, 8-len(keys)))+a.help) {
			t.Errorf("help lacks %s (%s) as %q:\n%s", a.name, a.help, line, help)
		}
	}
	if !strings.Contains(help, "1…9     focus the pane with that number") {
		t.Errorf("help lacks the focus-N line:\n%s", help)
	}

	m.keys = newKeyTables("ctrl+b", []keys.Binding{{Key: "x", Action: keys.ActionNone}, {Key: "|", Action: "zoom"},
		{Root: true, Key: "f5", Action: "new-pane"}, {Key: "5", Action: "list"}})
	help = m.lv().helpText()
	for _, want := range []string{"  z |     zoom", "without the prefix:", "  f5      open a local shell", "  w 5     list every session", "  6       focus the pane with number 6"} {
		if !strings.Contains(help, want) {
			t.Errorf("help with bindings lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "1…9") || strings.Contains(help, "  x       close") {
		t.Errorf("help shows keys no longer bound:\n%s", help)
	}
}

// A root binding acts without the prefix; an unbound key after the
// prefix does nothing; a read-only client may not run an action that
// touches a pane, however it is bound.
func TestBindingsDispatch(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	m.keys = newKeyTables("ctrl+b", []keys.Binding{{Key: "x", Action: keys.ActionNone}, {Root: true, Key: "f5", Action: "zoom"},
		{Root: true, Key: "f6", Action: "close"}})
	send(m, tea.KeyPressMsg(tea.Key{Code: tea.KeyF5}))
	if !m.lv().zoom {
		t.Error("f5, bound to zoom without the prefix, did not zoom")
	}
	press(m, "ctrl+b")
	press(m, "x")
	if m.Grid()[0].Phase() != mux.PhaseRunning || m.lv().modalKind() != modalNone {
		t.Errorf("prefix x, unbound, acted: phase %v, modal %v", m.Grid()[0].Phase(), m.lv().modalKind())
	}
	m.lv().readOnly = true
	send(m, tea.KeyPressMsg(tea.Key{Code: tea.KeyF6}))
	if m.Grid()[0].Phase() != mux.PhaseRunning || m.lv().notice != "read-only" {
		t.Errorf("a read-only client's f6 (close) acted: phase %v, notice %q", m.Grid()[0].Phase(), m.lv().notice)
	}
}

// In a narrow terminal help's text wraps under its own column: no line
// of the box is wider than the terminal (the outer terminal would wrap it
// into fragments), and every word of every binding's help is still there.
func TestHelpWrapsInANarrowTerminal(t *testing.T) {
	for _, width := range []int{44, 60, 80} {
		m := newTestModel(t, newFakeBackend(), 1, width, 60)
		help := m.lv().helpText()
		for _, l := range strings.Split(help, "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("at %d columns a help line is %d wide: %q", width, w, ansi.Strip(l))
			}
		}
		var words []string
		for _, l := range strings.Split(ansi.Strip(help), "\n") {
			words = append(words, strings.Fields(strings.Trim(l, "│ ╭╮╰╯─"))...)
		}
		text := " " + strings.Join(words, " ") + " "
		for _, a := range actions {
			if a.group == "" && !strings.Contains(text, " "+strings.Join(strings.Fields(a.help), " ")+" ") {
				t.Errorf("at %d columns help lost %q:\n%s", width, a.help, ansi.Strip(help))
			}
		}
	}
}

// The action table has the names the config checks bindings against, in
// help's order: a name in one and not the other is a binding the config
// refuses though it works, or accepts though it does nothing.
func TestActionNamesAreTheConfigs(t *testing.T) {
	if got, want := actionNames(), keys.ActionNames(); !slices.Equal(got, want) {
		t.Errorf("the action table's names\n%q\nare not keys.ActionNames\n%q\n(add or rename the action in both)", got, want)
	}
}

// In a terminal too short for all of help, help shows what fits and says
// how to scroll; scrolling reaches its last line, and a key that does not
// scroll closes it. Help was cut at the bottom of an 80x24 terminal, with
// no way to the bindings below.
func TestHelpScrollsInAShortTerminal(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 1, 80, 24)
	press(m, "ctrl+b")
	press(m, "?")
	last := "Any key closes this."
	s := ansi.Strip(content(m))
	if strings.Contains(s, last) || !strings.Contains(s, "pgup pgdn home end scroll") {
		t.Fatalf("help in 80x24 shows its end or no way to scroll:\n%s", s)
	}
	first := strings.Contains(s, "press ctrl+b, then:")
	press(m, "down")
	if s = ansi.Strip(content(m)); !first || strings.Contains(s, "press ctrl+b, then:") {
		t.Errorf("down did not scroll help by a line:\n%s", s)
	}
	for range 100 {
		press(m, "down") // past the end: it stays at the end
	}
	if s = ansi.Strip(content(m)); !strings.Contains(s, last) {
		t.Errorf("help scrolled to its end lacks its last line:\n%s", s)
	}
	press(m, "space") // what people close a pager's page with
	if m.lv().modalKind() == modalHelp {
		t.Error("space, a key that does not scroll, left help open")
	}
}
