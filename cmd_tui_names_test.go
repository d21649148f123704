package main

import (
	"strings"
	"testing"
)

// Ad-hoc panes are called by their command's first word, numbered in
// their titles, and prefix , renames the focused one: the new name is
// what every client, ctl and the summary call it.
func TestTUIPaneNamesAndRename(t *testing.T) {
	tt := startTerm(t, 120, 30, sandmuxBin+" 'cat -u' 'sleep 1000'")
	tt.waitFor("two numbered titles", func(s string) bool {
		return strings.Contains(s, "1 cat · local · idle") && strings.Contains(s, "2 sleep · local · idle")
	})
	tt.keys("C-b", ",")
	tt.waitText("Rename pane 1: cat")
	tt.keys("BSpace", "BSpace", "BSpace")
	tt.typeText("web")
	tt.keys("Enter")
	tt.waitText("1 web · local · idle")
	if ls := ctlIn(t, tt.dir, "ls"); !strings.Contains(ls, " web ") {
		t.Errorf("ctl ls does not call the renamed pane web:\n%s", ls)
	}
	tt.keys("C-b", ",")
	tt.waitText("Rename pane 1: web")
	tt.typeText("zz")
	tt.keys("Escape")
	// The status line drawn back where the prompt was: a screen read
	// mid-frame can hold neither.
	s := tt.waitFor("the prompt gone, the status line back", func(s string) bool {
		return !strings.Contains(s, "Rename pane") && strings.Contains(s, "2 idle")
	})
	if !strings.Contains(s, "1 web · local") {
		t.Errorf("esc changed the name:\n%s", s)
	}
	tt.keys("C-b", "q")
	tt.waitText("Quit and tear them all down?")
	tt.keys("y")
	if s := tt.waitExit(); !strings.Contains(s, "web: ") {
		t.Errorf("the summary does not use the new name:\n%s", s)
	}
}
