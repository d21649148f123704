package ui

import (
	"fmt"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A view composes again only the lines whose parts changed; what it shows
// must equal a composition from scratch after every kind of change.
func TestComposeIncrementalEqualsWhole(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 4, 120, 40)
	v := m.lv()
	check := func(step string) {
		t.Helper()
		got := v.composeLines()
		v.lines = composedLines{}
		if want := v.composeLines(); !slices.Equal(got, want) {
			t.Fatalf("after %s the incremental lines differ from a whole composition", step)
		}
	}
	check("start")
	for i := range 30 {
		p := m.Grid()[i%4]
		p.Screen().Write(fmt.Sprintf("line %d\r\n", i))
		m.Update(frameMsg{})
		check(fmt.Sprintf("output %d", i))
	}
	press(m, "ctrl+b")
	press(m, "o")
	check("focus")
	press(m, "ctrl+b")
	press(m, "z")
	check("zoom")
	press(m, "ctrl+b")
	press(m, "z")
	check("unzoom")
	b.CloseErr["cpane"] = errFullStore
	closing, err := m.ClosePane(m.Grid()[2].ID(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range runCmd(closing) {
		m.Update(msg)
	}
	if _, _, ok := m.Grid()[2].Alert(); !ok {
		t.Fatal("test setup: the failed close shows no alert")
	}
	check("alert")
	m.Update(DoMsg{Fn: func(m *Model) tea.Cmd { return m.Dismiss(2) }})
	check("alert gone")
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	check("resize")
}
