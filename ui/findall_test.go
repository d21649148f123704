package ui

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

func fillers(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s filler %d\r\n", tag, i)
	}
	return b.String()
}

// deliver delivers msg and returns its command.
func deliver(m *Model, msg tea.Msg) tea.Cmd {
	_, cmd := m.Update(msg)
	return cmd
}

// typeText presses each rune of s.
func typeText(m *Model, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

// searchNow presses enter in the search modal and delivers the results
// of the search it runs.
func searchNow(t *testing.T, m *Model) {
	t.Helper()
	cmd := press(m, "enter")
	if cmd == nil {
		t.Fatal("enter ran no search")
	}
	msg, ok := cmd().(findResultsMsg)
	if !ok {
		t.Fatalf("the search returned %T", msg)
	}
	deliver(m, msg)
}

// highlighted reports whether the pane's frame shows text on some row
// with the cells of word in it reversed.
func highlighted(s *paneView, text, word string) bool {
	for y := range s.frame.Rows {
		row := string(vt.RenderRowText(nil, &s.frame, y))
		if !strings.Contains(row, text) {
			continue
		}
		x := strings.Index(row, text) + strings.Index(text, word)
		for k := range len(word) {
			if s.frame.Cell(x+k, y).Attrs&vt.AttrReverse == 0 {
				return false
			}
		}
		return true
	}
	return false
}

func TestFindAcrossPanesOpensTheMatch(t *testing.T) {
	b := newFakeBackend()
	b.Output[paneName(1)] = "alpha NEEDLE one\r\n" + fillers("b", 40)
	b.Output[paneName(9)] = "first needle j\r\n" + fillers("j", 40) + "second needle j\r\n" + fillers("j", 40)
	m := newTestModel(t, b, 10, 60, 12) // 4 panes a page
	v := m.lv()
	if v.pageSize() != 4 {
		t.Fatalf("%d panes a page; the test wants pane 10 on page 3", v.pageSize())
	}
	press(m, "ctrl+b")
	press(m, "/")
	if v.modalKind() != modalFind {
		t.Fatalf("prefix / opened modal %d", v.modalKind())
	}
	typeText(m, "needle")
	searchNow(t, m)
	f := v.find()
	var got []string
	for _, r := range f.found {
		got = append(got, fmt.Sprintf("%d:%s", m.IndexOf(r.key), r.Excerpt))
	}
	want := []string{"1:alpha NEEDLE one", "9:second needle j", "9:first needle j"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("results %q, want %q", got, want)
	}
	if view := stripSGR(content(m)); !strings.Contains(view, "3 matching line(s) in 2 pane(s)") ||
		!strings.Contains(view, "10 jpane") {
		t.Errorf("the modal lacks its counts or a result:\n%s", view)
	}

	press(m, "down")
	press(m, "enter")
	if v.modalKind() != modalNone || v.focusIndex() != 9 || v.page != 2 || !v.scrollMode {
		t.Fatalf("after enter: modal %d focus %d page %d scroll mode %v", v.modalKind(), v.focusIndex(), v.page, v.scrollMode)
	}
	s := v.pv(m.Grid()[9])
	if s.scroll == 0 || !highlighted(s, "second needle j", "needle") {
		t.Fatalf("scrolled %d; the frame does not show the match highlighted:\n%s", s.scroll, vt.RenderText(nil, &s.frame))
	}
	if view := stripSGR(content(m)); !strings.Contains(view, "second needle j") {
		t.Errorf("the view does not show the match:\n%s", view)
	}
	// n goes on to the older match, as the pane's own search does.
	press(m, "n")
	if !highlighted(s, "first needle j", "needle") || s.search.notFound {
		t.Errorf("n did not go on to the older match:\n%s", vt.RenderText(nil, &s.frame))
	}
	press(m, "q")
	if v.scrollMode || s.scroll != 0 {
		t.Errorf("q left scroll mode %v at %d", v.scrollMode, s.scroll)
	}
}

func TestFindHostileTextIsEscaped(t *testing.T) {
	b := newFakeBackend()
	name := hostileName + "-pane"
	b.Output[paneName(0)] = "needle \u202eevil\u2066 end\r\n"
	m := newTestModel(t, b, 2, 120, 30)
	m.Rename(0, name)
	press(m, "ctrl+b")
	press(m, "/")
	typeText(m, "needle")
	searchNow(t, m)
	send(m, tea.PasteMsg{Content: "\x1b]0;x\x07"}) // pasted into the query
	// The pane's body is the child's to draw; the modal is sandmux's.
	box := m.lv().findText()
	if why := chromeUnsafe(box); why != "" {
		t.Fatalf("the search modal holds %s:\n%q", why, box)
	}
	plain := stripSGR(box)
	for _, want := range []string{`evil\x1b]0;pwne`, `\u202eevil\u2066`, `needle\x1b]0;x\x07`, "(for an older query)"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the modal lacks %q:\n%s", want, plain)
		}
	}
}

// TestFindDebounceAndStaleResults types with a fake clock: a search runs
// only once typing paused, for the latest query; results of an older
// query are dropped. A read-only client may search.
func TestFindDebounceAndStaleResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newFakeBackend()
		b.Output[paneName(0)] = "hay needle\r\n"
		b.Output[paneName(1)] = "nest\r\n"
		m := newTestModel(t, b, 2, 100, 30)
		v := m.lv()
		v.readOnly = true
		press(m, "ctrl+b")
		press(m, "/")
		first := press(m, "n")
		second := press(m, "e")
		if first == nil || second == nil {
			t.Fatal("typing armed no debounce")
		}
		if cmd := deliver(m, first()); cmd != nil {
			t.Fatal("the tick of an older query ran a search")
		}
		search := deliver(m, second())
		if search == nil {
			t.Fatal("the tick of the query ran no search")
		}
		results := search()
		typeText(m, "e") // "nee": the results above are for "ne" now
		deliver(m, results)
		if v.find().done != 0 || len(v.find().found) != 0 {
			t.Fatalf("results of an older query were kept: %+v", v.find().found)
		}
		searchNow(t, m)
		if len(v.find().found) != 1 || v.find().found[0].Excerpt != "hay needle" {
			t.Fatalf("results %+v", v.find().found)
		}
		press(m, "esc")
		if v.modalKind() != modalNone || v.find() != nil {
			t.Errorf("esc left modal %d", v.modalKind())
		}
	})
}

func TestFindBadRegexpSaysSo(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 1, 100, 30)
	press(m, "ctrl+b")
	press(m, "/")
	typeText(m, "re:(")
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatal("a bad expression ran a search")
	}
	if view := stripSGR(content(m)); !strings.Contains(view, "fix the expression") {
		t.Errorf("the modal does not say what is wrong:\n%s", view)
	}
}

// TestScrollSearchSharesTheMatcher: a pane's own scrollback search (prefix
// [ then /) finds what the search across panes does: smart case, re:.
func TestScrollSearchSharesTheMatcher(t *testing.T) {
	b := newFakeBackend()
	b.Output[paneName(0)] = "a NEEDLE b\r\n" + fillers("a", 60)
	m := newTestModel(t, b, 1, 80, 24)
	v := m.lv()
	press(m, "ctrl+b")
	press(m, "[")
	press(m, "/")
	typeText(m, "needle")
	press(m, "enter")
	s := v.pv(m.Grid()[0])
	if s.scroll == 0 || !highlighted(s, "a NEEDLE b", "NEEDLE") {
		t.Fatalf("a folded query did not find NEEDLE (scrolled %d):\n%s", s.scroll, vt.RenderText(nil, &s.frame))
	}
	press(m, "/")
	typeText(m, "re:(")
	press(m, "enter")
	if st := v.scrollStatus(); !strings.Contains(st, "fix the expression") {
		t.Errorf("status %q does not say the expression is wrong", st)
	}
}

// TestFindListScrolls: the selection stays among the rows shown, and the
// results are bounded.
func TestFindListScrolls(t *testing.T) {
	b := newFakeBackend()
	b.Output[paneName(0)] = fillers("x", 1500)
	m := newTestModel(t, b, 1, 100, 20)
	v := m.lv()
	press(m, "ctrl+b")
	press(m, "/")
	typeText(m, "filler")
	searchNow(t, m)
	f := v.find()
	if len(f.found) != maxFound || !f.more {
		t.Fatalf("%d results, more %v; want %d and more", len(f.found), f.more, maxFound)
	}
	rows := v.findRows()
	for range 3 {
		press(m, "pgdown")
	}
	press(m, "down")
	if f.sel != 3*rows+1 || f.sel < f.top || f.sel >= f.top+rows {
		t.Fatalf("selection %d, top %d, %d rows", f.sel, f.top, rows)
	}
	box := stripSGR(v.findText())
	if !strings.Contains(box, "1000+ matching line(s)") || !strings.Contains(box, "› 1 apane") {
		t.Errorf("the box does not show the count or the selection:\n%s", box)
	}
}
