package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pane that fails to start shows its whole reason in its body, wrapped
// to the pane, with how to restart or close it: the title's width cuts it,
// even zoomed.
func TestTUIFailedStartShowsWholeReason(t *testing.T) {
	need(t, "tmux")
	cfg := `
[[sandbox]]
name = "broken"
command = ["no-such-command-for-sandmux-tests"]

[[sandbox]]
name = "fine"
command = "echo FINE-READY; exec cat"
`
	cfgPath := filepath.Join(t.TempDir(), "sandmux.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 80, 24, sandmuxBin+" -c "+cfgPath)
	// The whole error, hint included, is there once its lines are joined;
	// the wait is for all of it, as a read may fall inside a frame.
	wants := []string{"no-such-command-for-sandmux-tests", "executable file not found", "check the command", "ctrl+b r restarts"}
	tt.waitFor("the whole error in the failed pane", func(s string) bool {
		joined := strings.ReplaceAll(strings.Join(strings.Fields(region(s, 0, 0, 40, 23)), " "), "- ", "-") // lines may break after a hyphen
		for _, want := range wants {
			if !strings.Contains(joined, want) {
				return false
			}
		}
		return strings.Contains(s, "start failed")
	})
	tt.keys("C-b", "q")
	tt.waitText("y/n")
	tt.keys("y")
	tt.waitExit()
	tt.checkRestored()
}

// Prefix and a pane's number focus that pane: typing then reaches it
// alone.
func TestTUIPrefixNumberFocusesPane(t *testing.T) {
	tt := startQuad(t)
	s := tt.screen()
	for i := range 4 {
		if title := strings.SplitN(quadRegion(s, i), "\n", 2)[0]; !strings.HasPrefix(strings.TrimSpace(title), fmt.Sprint(i+1)+" ") {
			t.Errorf("pane %d's title %q does not start with its number", i+1, title)
		}
	}
	tt.keys("C-b", "3")
	tt.typeText("to-three")
	tt.keys("Enter")
	s = tt.waitPane(2, "to-three")
	only(t, s, "to-three", 2)
	tt.keys("C-b", "q")
	tt.waitText("y/n")
	tt.keys("y")
	tt.waitExit()
}
