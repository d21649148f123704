package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Prefix c opens a local shell in the directory the client was started
// from, not the server's: the server starts from one directory, a second
// client attaches from another, and its new shell lists that one. Prefix
// C opens a pane running the command line typed at its prompt, there too.
func TestTUINewPaneKeys(t *testing.T) {
	need(t, "tmux")
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	for _, d := range []string{first, second} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(second, "marker-of-second"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := startTermIn(t, dir, 120, 30, "cd "+first+" && "+sandmuxBin+" 'cat -u'")
	t.Cleanup(func() { stopServer(t, dir) })
	a.waitStarted()
	b := startTermIn(t, dir, 120, 30, "cd "+second+" && SHELL=/bin/sh "+sandmuxBin+" attach")
	b.waitText("1 cat · local")

	b.keys("C-b", "c")
	b.waitText("2 shell · local")
	b.typeText("ls; echo listed-$((6*7))")
	b.keys("Enter")
	s := b.waitText("listed-42")
	if !strings.Contains(s, "marker-of-second") {
		t.Errorf("prefix c's shell does not start in the client's directory:\n%s", s)
	}
	if ls := ctlIn(t, dir, "ls"); !strings.Contains(ls, "shell") {
		t.Errorf("ctl ls does not list the new shell:\n%s", ls)
	}

	b.keys("C-b", "C")
	b.waitText("New pane, command:")
	b.typeText("echo from-C-$((7*7)) in $(basename $PWD); exec cat")
	b.keys("Enter")
	b.waitText("3 echo · local")
	b.waitText("from-C-49 in second")

	// esc at the prompt opens nothing.
	b.keys("C-b", "C")
	b.waitText("New pane, command:")
	b.typeText("echo never")
	b.keys("Escape")
	b.waitFor("the prompt gone", func(s string) bool { return !strings.Contains(s, "New pane") })
	if ls := ctlIn(t, dir, "ls"); strings.Count(ls, "\n") != 4 || strings.Contains(ls, "never") {
		t.Errorf("esc at the prompt opened a pane:\n%s", ls)
	}
	b.keys("C-b", "?")
	help := b.waitText("show or hide this help", "c       open a local shell pane", "C       open a pane running a command line")
	for _, want := range []string{"c       open a local shell pane", "C       open a pane running a command line"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// With a config of its own, prefix c offers its sandboxes below the
// shell: the picker lists them, and enter opens the one selected.
func TestTUINewPanePicker(t *testing.T) {
	cfg := `
[[sandbox]]
name = "alpha"
command = "echo alpha-up; exec cat"
workspace = "ws-alpha"

[[sandbox]]
name = "beta"
command = "echo beta-up-$((3*3)); exec cat"
workspace = "ws-beta"
`
	cfgPath := filepath.Join(t.TempDir(), "sandmux.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 120, 30, sandmuxBin+" -c "+cfgPath)
	tt.waitText("alpha-up")
	tt.waitText("beta-up-9")
	tt.keys("C-b", "c")
	s := tt.waitText("New pane:", "▶ 1 shell in ", "  2 sandbox alpha", "  3 sandbox beta")
	for _, want := range []string{"▶ 1 shell in ", "  2 sandbox alpha", "  3 sandbox beta"} {
		if !strings.Contains(s, want) {
			t.Errorf("the picker lacks %q:\n%s", want, s)
		}
	}
	tt.keys("Down", "Down")
	tt.waitText("▶ 3 sandbox beta")
	tt.keys("Enter")
	tt.waitText("3 beta-2 · local") // a taken name gets a suffix
	if ls := ctlIn(t, tt.dir, "ls"); strings.Count(ls, "beta") != 2 {
		t.Errorf("the picker did not open a second beta:\n%s", ls)
	}
}
