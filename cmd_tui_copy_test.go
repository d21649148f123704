package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Copy mode: in scrollback, v starts a selection at the cursor, the
// cursor keys, w and $ extend it, V takes whole lines, and y copies it
// to the user's terminal through OSC 52 (here a tmux with set-clipboard
// on, which keeps it as its buffer); a mouse drag selects and its
// release copies, as tmux does with the mouse on.
func TestTUICopyMode(t *testing.T) {
	need(t, "tmux")
	script := filepath.Join(t.TempDir(), "lines.sh")
	if err := os.WriteFile(script, []byte("printf 'alpha beta gamma\\nsecond line here\\n'; exec cat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 120, 50, sandmuxBin+" 'sh "+script+"'")
	tt.tmux("set-option", "-g", "set-clipboard", "on")
	tt.waitText("second line here")
	buffer := func() string {
		out, err := exec.Command("tmux", "-L", tt.sock, "show-buffer").Output()
		if err != nil {
			return "" // no buffer yet
		}
		return string(out)
	}
	waitBuffer := func(how, want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for buffer() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: tmux's buffer is %q, want %q; screen:\n%s", how, buffer(), want, tt.screen())
			}
			time.Sleep(20 * time.Millisecond) // a poll interval: tmux has no event for it
		}
	}

	// The cursor starts on the row below the output: up twice is the
	// first line; v there starts anew, w w goes to gamma, $ to its end.
	tt.keys("C-b", "[")
	tt.waitText("SCROLL")
	tt.keys("v", "Up", "Up", "v", "w", "w", "$", "y")
	waitBuffer("v w w $ y", "alpha beta gamma")
	tt.waitText("copied 16 bytes")

	tt.keys("C-b", "[")
	tt.waitText("SCROLL")
	tt.keys("v", "Up", "V")
	tt.waitText("SELECT LINES")
	tt.keys("Up", "y")
	waitBuffer("v up V up y", "alpha beta gamma\nsecond line here")

	// esc drops a selection, and leaves scrollback after it.
	tt.keys("C-b", "[")
	tt.waitText("SCROLL")
	tt.keys("v")
	tt.waitText("SELECT: y copies")
	tt.keys("Escape")
	tt.waitFor("the selection dropped", func(s string) bool { return !strings.Contains(s, "SELECT") })
	tt.keys("q")
	tt.waitFor("scrollback left", func(s string) bool { return !strings.Contains(s, "SCROLL") })

	// A drag over "alpha" (the body's first row is the terminal's second):
	// SGR press, motion with the left button, release.
	tt.tmux("send-keys", "-l", "\x1b[<0;1;2M\x1b[<32;3;2M\x1b[<32;5;2M\x1b[<0;5;2m")
	waitBuffer("a drag", "alpha")
	tt.waitFor("the drag's scrollback left", func(s string) bool { return !strings.Contains(s, "SCROLL") })
	tt.typeText("typed-after")
	tt.waitText("typed-after")

	tt.keys("C-b", "?")
	help := tt.waitText("show or hide this help", "v starts a selection", "y or enter copies it")
	if !strings.Contains(help, "v starts a selection") || !strings.Contains(help, "y or enter copies it") {
		t.Errorf("help does not tell of the selection:\n%s", help)
	}
}
