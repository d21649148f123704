package ui

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/ui/term"
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

// An echo drawn between two frames of busy panes looks at the echoing
// pane's title alone, not at every pane's; the frame after it brings
// every line up to date, equal to a composition from scratch.
func TestEchoComposesItsPaneAlone(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 48, 200, 50)
	tm, err := term.Open(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tm.Close() })
	drawTo(m, tm)
	v := m.lv()
	m.Update(frameMsg{})
	press(m, "a")
	m.frameArmed = true // between two frames of the others
	m.Grid()[0].Screen().Write("a")
	m.Grid()[7].Screen().Write("output of another pane")
	looks, composes := v.titleLooks, v.composes
	m.Update(WakeMsg{Kind: WakeDirty})
	if v.composes == composes {
		t.Fatal("the echo was not drawn")
	}
	if n := v.titleLooks - looks; n != 1 {
		t.Errorf("drawing an echo looked at %d titles, want the echoing pane's alone", n)
	}
	if !strings.Contains(content(m), "a") {
		t.Error("the echo is not on screen")
	}
	m.Update(frameMsg{})
	got := v.composeLines()
	v.lines = composedLines{}
	if want := v.composeLines(); !slices.Equal(got, want) {
		t.Error("after the frame that followed an echo the lines differ from a whole composition")
	}
}
