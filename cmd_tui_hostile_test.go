package main

import (
	"strings"
	"testing"
)

// TestContract_T1_TUIEscapesPaneNames runs sandmux in tmux with a pane
// whose name (its command's first word, its trailing ; dropped) sets the window title if printed
// raw: neither
// the title line nor the summary at quit lets it through.
func TestContract_T1_TUIEscapesPaneNames(t *testing.T) {
	tt := startTerm(t, 100, 20, sandmuxBin+" 'true"+"\x1b]2;pwned\x07"+"; exit 3'")
	screen := tt.waitText("exited 3")
	if title := tt.format("#{pane_title}"); title == "pwned" {
		t.Errorf("the pane's name set the terminal's title")
	}
	if !strings.Contains(screen, `true\x1b]2;pwned\x07 · local`) {
		t.Errorf("the title line does not show the name escaped:\n%s", screen)
	}
	tt.keys("C-b", "q")
	screen = tt.waitExit()
	if !strings.Contains(screen, `true\x1b]2;pwned\x07:`) {
		t.Errorf("the summary does not show the name escaped:\n%s", screen)
	}
	if title := tt.format("#{pane_title}"); title == "pwned" {
		t.Errorf("the summary at quit set the terminal's title")
	}
}
