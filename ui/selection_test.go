package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A selection's text is each line's selected cells as written: a wide
// rune once, trailing blanks trimmed, lines joined by newlines; w and b
// move by words, across lines.
func TestSelectionText(t *testing.T) {
	b := newFakeBackend()
	b.Output["apane"] = "one 日本 three   \r\nsecond  line\r\nlast"
	m := newTestModel(t, b, 1, 80, 24)
	p := m.Grid()[0]
	for _, c := range []struct {
		sel  selection
		want string
	}{
		{selection{anchor: point{0, 0}, cursor: point{0, 2}}, "one"},
		{selection{anchor: point{0, 4}, cursor: point{0, 7}}, "日本"},
		{selection{anchor: point{0, 9}, cursor: point{1, 5}}, "three\nsecond"},
		{selection{anchor: point{1, 3}, cursor: point{0, 9}}, "three\nseco"},
		{selection{anchor: point{2, 1}, cursor: point{0, 4}, lines: true}, "one 日本 three\nsecond  line\nlast"},
	} {
		if got, cut := selectedText(p, &c.sel); got != c.want || cut {
			t.Errorf("%+v: %q (cut %v), want %q", c.sel, got, cut, c.want)
		}
	}
	for _, c := range []struct {
		from, fwd, back point
	}{
		{point{0, 0}, point{0, 4}, point{0, 0}},
		{point{0, 4}, point{0, 9}, point{0, 0}},
		{point{0, 10}, point{1, 0}, point{0, 9}},
		{point{1, 0}, point{1, 8}, point{0, 9}},
	} {
		if got := wordForward(p, c.from); got != c.fwd {
			t.Errorf("w from %v: %v, want %v", c.from, got, c.fwd)
		}
		if got := wordBack(p, c.from); got != c.back {
			t.Errorf("b from %v: %v, want %v", c.from, got, c.back)
		}
	}
}

// A drag selects from where the button went down; released anywhere,
// over the status line too, it copies what it covered and leaves the
// scrollback mode it entered.
func TestDragCopies(t *testing.T) {
	b := newFakeBackend()
	b.Output["apane"] = "dragged text here"
	m := newTestModel(t, b, 1, 80, 24)
	v := m.lv()
	send(m, tea.MouseClickMsg{X: 0, Y: 1, Button: tea.MouseLeft})
	send(m, tea.MouseMotionMsg{X: 4, Y: 1, Button: tea.MouseLeft})
	if !v.scrollMode || v.pv(m.Grid()[0]).sel == nil {
		t.Fatal("a drag made no selection")
	}
	send(m, tea.MouseMotionMsg{X: 40, Y: 23, Button: tea.MouseLeft})
	send(m, tea.MouseReleaseMsg{X: 40, Y: 23, Button: tea.MouseLeft})
	// The text, then the 21 blank rows down to the last, as empty lines.
	if v.notice != "copied 38 bytes" || v.scrollMode || v.pv(m.Grid()[0]).sel != nil {
		t.Errorf("after the release: notice %q, scroll mode %v, selection %+v", v.notice, v.scrollMode, v.pv(m.Grid()[0]).sel)
	}
	// A click alone selects nothing.
	send(m, tea.MouseClickMsg{X: 2, Y: 1, Button: tea.MouseLeft})
	send(m, tea.MouseReleaseMsg{X: 2, Y: 1, Button: tea.MouseLeft})
	if v.scrollMode || v.pv(m.Grid()[0]).sel != nil {
		t.Error("a click made a selection")
	}
}
