package ui

import (
	"testing"
)

// A selection's text is each line's selected cells as written: a wide
// rune once, trailing blanks trimmed, lines joined by newlines; w and b
// move by words, across lines.
func TestSelectionText(t *testing.T) {
	b := newFakeBackend()
	b.output["apane"] = "one 日本 three   \r\nsecond  line\r\nlast"
	m := newTestModel(t, b, 1, 80, 24)
	p := m.panes[0]
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
