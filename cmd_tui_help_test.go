package main

import (
	"strings"
	"testing"
)

// In a terminal narrower than help's lines, each binding's text wraps
// under its own column inside the box, instead of the terminal wrapping
// the box's rows into fragments.
func TestTUIHelpWrapsInANarrowTerminal(t *testing.T) {
	tt := startTerm(t, 50, 60, sandmuxBin+" 'echo help-up; exec cat'")
	tt.waitText("help-up")
	tt.keys("C-b", "?")
	// Up to the box's last row: a screen read mid-frame holds its top only.
	screen := tt.waitText("show or hide this help", "╰")
	lines := strings.Split(screen, "\n")
	found := false
	for i, l := range lines {
		if strings.Contains(l, "│   x       close the pane, asking if it runs") {
			found = i+1 < len(lines) && strings.Contains(lines[i+1], "│           (teardown, snapshot); dismiss a")
		}
	}
	if !found {
		t.Errorf("help's x line does not wrap under its column at 50 columns:\n%s", screen)
	}
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "│") && !strings.HasSuffix(strings.TrimRight(l, " "), "│") {
			t.Errorf("a help row is cut or wrapped by the terminal: %q\n%s", l, screen)
			break
		}
	}
}
