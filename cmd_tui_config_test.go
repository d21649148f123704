package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config with several errors, given to the client that would start
// the server, prints each error on a line of its own.
func TestTUIConfigErrorsKeepTheirLines(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "typo.toml")
	if err := os.WriteFile(cfg, []byte("[ui]\nfps = \"x\"\nbogus = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 200, 24, sandmuxBin+" -c "+cfg)
	s := tt.waitExit()
	if strings.Contains(s, `\n`) || !strings.Contains(s, "typo.toml:2: ui.fps") || !strings.Contains(s, "\n"+cfg+":3: ui.bogus") || !strings.Contains(s, "EXIT=1") {
		t.Fatalf("the config's errors are not one a line:\n%s", s)
	}
}

// sandmux on a config other than the one the running server read says
// so in one line, with how to start a server of its own, and attaches.
func TestTUIOtherConfigSaysSo(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.toml"), filepath.Join(dir, "second.toml")
	for _, f := range []string{first, second} {
		body := "[[sandbox]]\nname = \"" + strings.TrimSuffix(filepath.Base(f), ".toml") + "\"\ncommand = \"echo from-$((6*7)); exec cat\"\n"
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := startTerm(t, 100, 24, sandmuxBin+" -c "+first)
	a.waitText("from-42")
	a.keys("C-b", "d")
	if s := a.waitExit(); strings.Contains(s, "runs on") {
		t.Fatalf("the first client spoke of another config:\n%s", s)
	}
	b := startTermIn(t, a.dir, 200, 24, sandmuxBin+" -c "+first)
	b.waitText("from-42")
	b.keys("C-b", "d")
	if s := b.waitExit(); strings.Contains(s, "runs on") {
		t.Fatalf("a client on the same config spoke of another:\n%s", s)
	}
	c := startTermIn(t, a.dir, 200, 24, sandmuxBin+" -c "+second)
	c.waitText("1 first") // attached to the first server's pane
	c.keys("C-b", "d")
	s := c.waitExit()
	want := "sandmux: the server default runs on " + first + ", not " + second + ": attaching to it; sandmux -L NAME -c " + second + " starts a server of its own"
	if strings.Count(s, "runs on") != 1 || !strings.Contains(strings.ReplaceAll(s, "\n", ""), want) { // a long line wraps
		t.Fatalf("after attaching on another config the terminal shows:\n%s\nwant once: %s", s, want)
	}
}

// A sandmux that go run built starts no server, whose file would be gone
// once it exits: it says how to install one. It attaches to a server
// that runs.
func TestTUITemporaryBuildStartsNoServer(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "go-build1234", "b001", "exe", "sandmux")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sandmuxBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	a := startTerm(t, 200, 24, exe)
	s := a.waitExit()
	if !strings.Contains(strings.ReplaceAll(s, "\n", ""), "install it with go install . (or make install)") || !strings.Contains(s, "EXIT=1") {
		t.Fatalf("a go run build started a server, or did not say why not:\n%s", s)
	}
	if _, err := os.Stat(serverSocket(a.dir)); err == nil {
		t.Fatal("a server runs from the temporary build")
	}
	b := startTermIn(t, a.dir, 100, 24, sandmuxBin+" 'echo up-$((6*7)); exec cat'")
	b.waitText("up-42")
	c := startTermIn(t, a.dir, 100, 24, exe)
	c.waitText("up-42")
	c.keys("C-b", "d")
	c.waitExit()
}

// A workspace that does not exist is created at the start, and the
// pane's title says so once: after a restart, it no longer does.
func TestTUIWorkspaceCreatedIsSaidOnce(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	cfgPath := filepath.Join(dir, "sandmux.toml")
	if err := os.WriteFile(cfgPath, []byte("[[sandbox]]\nname = \"box\"\nworkspace = \""+ws+"\"\ncommand = \"echo in-$(basename $PWD); exec cat\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 200, 24, sandmuxBin+" -c "+cfgPath)
	s := tt.waitText("in-ws")
	title := strings.SplitN(s, "\n", 2)[0]
	if !strings.Contains(title, "created workspace "+ws) {
		t.Fatalf("the title does not say the workspace was created: %q", title)
	}
	ctlIn(t, tt.dir, "kill", "1")
	ctlIn(t, tt.dir, "wait", "1", "--phase", "killed", "--timeout", "30s")
	ctlIn(t, tt.dir, "restart", "1")
	ctlIn(t, tt.dir, "wait", "1", "--phase", "running", "--timeout", "30s")
	s = tt.waitFor("the restarted pane's title", func(s string) bool { return strings.Contains(strings.SplitN(s, "\n", 2)[0], "idle") })
	if title := strings.SplitN(s, "\n", 2)[0]; strings.Contains(title, "created workspace") {
		t.Fatalf("the title says it again after a restart: %q", title)
	}
}
