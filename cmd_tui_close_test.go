package main

import (
	"strings"
	"testing"
)

// Prefix x on a pane that runs asks first, as tmux's kill-pane does: n
// keeps it, y closes it; on a pane that exited it closes at once.
func TestTUICloseAsksWhileRunning(t *testing.T) {
	tt := startTerm(t, 120, 30, sandmuxBin+" 'echo keep; exec cat' 'echo ends'")
	tt.waitText("\nkeep")
	tt.waitText("exited 0")
	tt.keys("C-b", "x")
	tt.waitText("Close pane 1 (echo keep)? It is torn down. (y/n)")
	tt.keys("n")
	s := tt.waitFor("the question gone", func(s string) bool { return !strings.Contains(s, "(y/n)") })
	if !strings.Contains(s, "1 echo keep") || !strings.Contains(s, "2 ● echo ends") && !strings.Contains(s, "2 echo ends") {
		t.Fatalf("n closed something:\n%s", s)
	}
	tt.keys("C-b", "2", "C-b", "x") // the exited pane: no question
	tt.waitFor("the exited pane closed", func(s string) bool { return !strings.Contains(s, "echo ends") })
	if s := tt.screen(); strings.Contains(s, "(y/n)") {
		t.Fatalf("x asked before closing an exited pane:\n%s", s)
	}
	tt.keys("C-b", "x")
	tt.waitText("(y/n)")
	tt.keys("y")
	tt.waitText("No panes open")
	tt.keys("C-b", "q") // nothing runs: no question
	tt.waitExit()
}
