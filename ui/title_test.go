package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/status"
)

// A title is built again when one of its parts changed, and only then:
// output a second later shows in it, every other part the same (the
// state too); a drawing with nothing changed keeps the line it had.
func TestTitleFollowsItsParts(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	_, rects := m.lv().pageRects()
	w := rects[1].w // as the frame composes it: another width is another title
	out := func(s string) string {
		b.Sessions[1].OutputAt(now)
		m.Grid()[1].Screen().Write(s)
		m.Update(frameMsg{})
		return m.lv().title(1, m.Grid()[1], w)
	}
	out("w")
	now = now.Add(status.DefaultDebounce)
	turn(m) // working now, and still a second later
	first := out("x")
	if want := "out " + now.Format("15:04:05"); !strings.Contains(first, want) {
		t.Fatalf("title %q lacks %q", first, want)
	}
	if again := m.lv().title(1, m.Grid()[1], w); again != first {
		t.Errorf("title with nothing changed = %q, was %q", again, first)
	}
	now = now.Add(time.Second)
	second := out("y")
	if want := "out " + now.Format("15:04:05"); !strings.Contains(second, want) {
		t.Errorf("title after output a second later = %q, want %q in it", second, want)
	}
	if narrow := m.lv().title(1, m.Grid()[1], w/2); len([]rune(narrow)) >= len([]rune(second)) {
		t.Errorf("title %d wide %q is not shorter than %d wide %q", w/2, narrow, w, second)
	}
}

// The status line follows its parts as the titles do: panes that went
// from idle to working are counted again, the page and width the same.
func TestStatusLineFollowsItsParts(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	quietOnStart(m, &now) // the panes printed their prompts as they started
	before := m.lv().statusLine()
	if !strings.Contains(before, "2 idle") {
		t.Fatalf("status line %q, want both panes idle", before)
	}
	b.Sessions[1].OutputAt(now)
	m.Grid()[1].Screen().Write("x")
	m.Update(frameMsg{})
	now = now.Add(status.DefaultDebounce)
	turn(m)
	if after := m.lv().statusLine(); !strings.Contains(after, " working") || strings.Contains(after, "2 idle") {
		t.Errorf("status line after output = %q, want panes working", after)
	}
}
