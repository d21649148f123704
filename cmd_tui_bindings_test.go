package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/keys"
)

// [keys] binds actions to keys after the prefix and without it, unbinds
// a default one, and help shows the keys as bound.
func TestTUIKeyBindings(t *testing.T) {
	need(t, "tmux")
	cfg := `
[[sandbox]]
name = "one"
command = "echo one-up; exec cat"
workspace = "ws"

[keys.prefix]
"|" = "zoom"
x = "none"
X = "close"

[keys.root]
f5 = "new-command"
"alt+g" = "go-to"
`
	cfgPath := filepath.Join(t.TempDir(), "sandmux.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 120, 40, sandmuxBin+" -c "+cfgPath)
	tt.waitText("one-up")

	// A root binding acts without the prefix.
	tt.keys("F5")
	tt.waitText("New pane, command:")
	tt.typeText("echo two-up; exec cat")
	tt.keys("Enter")
	tt.waitText("2 echo · local")
	tt.keys("M-g")
	tt.waitText("Go to pane:")
	tt.keys("1", "Enter")
	tt.waitFor("the prompt gone", func(s string) bool { return !strings.Contains(s, "Go to pane") })

	// A new prefix binding, and an unbound default: prefix x closes
	// nothing now.
	tt.keys("C-b", "|")
	tt.waitFor("pane 1 zoomed", func(s string) bool {
		return strings.Contains(s, "1 one · local") && !strings.Contains(s, "2 echo · local")
	})
	tt.keys("C-b", "|")
	tt.waitText("2 echo · local")
	tt.keys("C-b", "x")
	tt.typeText("still-here")
	tt.keys("Enter")
	if s := waitCtlScreen(t, tt.dir, "1", "still-here"); !strings.Contains(s, "still-here") {
		t.Fatalf("after the unbound prefix x, pane 1 does not take keys:\n%s", s)
	}
	if ls := ctlIn(t, tt.dir, "ls"); strings.Count(ls, "running") != 2 {
		t.Errorf("prefix x, unbound, closed a pane:\n%s", ls)
	}

	tt.keys("C-b", "?")
	// The box's last row too: a screen read mid-frame holds the top of
	// the help only.
	help := tt.waitText("show or hide this help", "z |     zoom the focused pane", "X       close the pane",
		"without the prefix:", "f5      open a pane running a command line", "alt+g   focus the pane whose number", "╰")
	if strings.Contains(help, "  x     ") {
		t.Errorf("help still lists the unbound x:\n%s", help)
	}
}

// A misspelt action is refused at load, at its file, line and key, with
// what was meant: by sandmux check and by a server starting on it.
func TestCheckKeyBindingTypo(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "keys.toml")
	if err := os.WriteFile(cfgPath, []byte("[[sandbox]]\nname = \"a\"\n\n[keys.prefix]\nz = \"zom\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sandmuxBin, "check", "-c", cfgPath)
	cmd.Env = isolatedEnv(dir)
	out, err := cmd.CombinedOutput()
	want := cfgPath + `:5: keys.prefix.z: "zom" is not an action (did you mean "zoom"?)`
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("sandmux check: %v\n%s\nwant it to fail saying\n%s", err, out, want)
	}
}

// The README and config.example.toml name every action [keys] binds,
// so that the names a user may write are written down.
func TestDocsNameEveryAction(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range keys.ActionNames() {
		if strings.HasPrefix(name, "focus-") && name != "focus-1" && name != "focus-9" && len(name) == len("focus-1") {
			continue // written as focus-1 … focus-9
		}
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("README.md does not name the action %s", name)
		}
		if !strings.Contains(string(example), name) {
			t.Errorf("config.example.toml does not name the action %s", name)
		}
	}
}
