package main

import (
	"fmt"
	"strings"
	"testing"
)

// Prefix ' (or g), a number and enter focus any pane, past the nine that
// prefix 1…9 reach and on another page: what is typed next goes there.
func TestTUIGoToPanePastNine(t *testing.T) {
	var cmd strings.Builder
	cmd.WriteString(sandmuxBin)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&cmd, " 'echo pane-%d; exec cat'", i)
	}
	tt := startTerm(t, 120, 30, cmd.String())
	tt.waitText("pane-1")
	for _, c := range []struct {
		keys []string
		pane string
	}{
		{[]string{"'", "1", "1", "Enter"}, "11"},
		{[]string{"g", "1", "2", "Enter"}, "12"},
		{[]string{"'", "3", "Enter"}, "3"},
	} {
		tt.keys(append([]string{"C-b"}, c.keys[0])...)
		tt.waitText("Go to pane:")
		tt.keys(c.keys[1:]...)
		tt.waitFor("the prompt gone", func(s string) bool { return !strings.Contains(s, "Go to pane") })
		word := "typed-into-" + c.pane
		tt.typeText(word)
		tt.keys("Enter")
		if s := waitCtlScreen(t, tt.dir, c.pane, word); !strings.Contains(s, word) {
			t.Fatalf("after prefix %v, what was typed did not reach pane %s:\n%s", c.keys, c.pane, s)
		}
	}
	// A number no pane has says so and leaves the focus where it was.
	tt.keys("C-b", "'")
	tt.waitText("Go to pane:")
	tt.typeText("99")
	tt.keys("Enter")
	tt.waitText("no pane 99: there are 12")
	tt.keys("C-b", "?")
	help := tt.waitText("show or hide this help", "' g     focus the pane whose number is typed next", "w lists them all")
	if !strings.Contains(help, "' g     focus the pane whose number is typed next") || !strings.Contains(help, "w lists them all") {
		t.Errorf("help does not tell of prefix ' and w:\n%s", help)
	}
}
