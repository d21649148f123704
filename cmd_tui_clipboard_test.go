package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A pane's clipboard write (OSC 52) reaches the user's terminal, here a
// tmux with set-clipboard on, which keeps it as a paste buffer; with
// ui.clipboard = "off" it does not.
func TestTUIPassesClipboardWrites(t *testing.T) {
	for _, mode := range []string{"write", "off"} {
		t.Run(mode, func(t *testing.T) {
			need(t, "tmux")
			cfg := `
[ui]
clipboard = "` + mode + `"

[[sandbox]]
name = "clip"
command = "read x; printf '\\033]52;c;aGVsbG8tY2xpcA==\\007'; echo SENT; exec cat"
`
			cfgPath := filepath.Join(t.TempDir(), "sandmux.toml")
			if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			tt := startTerm(t, 80, 24, sandmuxBin+" -c "+cfgPath)
			tt.tmux("set-option", "-g", "set-clipboard", "on")
			tt.waitFor("the pane to start", func(s string) bool { return strings.Contains(s, "clip") })
			tt.keys("Enter")
			tt.waitText("SENT")
			buffer := func() string {
				out, err := exec.Command("tmux", "-L", tt.sock, "show-buffer").Output()
				if err != nil {
					return "" // no buffer yet
				}
				return string(out)
			}
			if mode == "write" {
				deadline := time.Now().Add(30 * time.Second)
				for buffer() != "hello-clip" {
					if time.Now().After(deadline) {
						t.Fatalf("tmux's buffer is %q, want the pane's clipboard write", buffer())
					}
					time.Sleep(20 * time.Millisecond) // a poll interval: tmux has no event for it
				}
			}
			// A frame drawn after SENT shows the write was handled: a
			// keystroke's echo comes after it.
			tt.typeText("after")
			tt.waitText("after")
			if mode == "off" && buffer() != "" {
				t.Errorf("with ui.clipboard off, tmux's buffer is %q", buffer())
			}
			tt.keys("C-b", "q")
			tt.waitText("y/n")
			tt.keys("y")
			tt.waitExit()
		})
	}
}
