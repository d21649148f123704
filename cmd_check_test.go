package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCheckForTest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runCheck(context.Background(), args, stdio{out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

func TestCheckPrintsSandboxes(t *testing.T) {
	dir := hermetic(t)
	doc := `[defaults]
stop_grace = "5s"
env = { EDITOR = "vi" }

[[sandbox]]
name = "shell"

[[sandbox]]
name = "build"
workspace = "~/src/p"
command = "make watch && echo 'done'"
size = "120x40"
drain_grace = "250ms"
snapshot = "always"
restore = "replace"
snapshot_exclude = ["node_modules", "*.log"]
snapshot_keep = 3
`
	if err := os.WriteFile("mine.toml", []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCheckForTest(t, "-c", "mine.toml")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := `config: mine.toml

server
  on_hangup: detach
  ssh:       off (ssh_listen is not set)
  web:       off (http_listen is not set)

sandbox shell
  provider:  local
  command:   the provider's shell
  workspace: DIR/.local/share/sandmux/workspaces/shell (does not exist: created at the start)
  size:      80x24 (TERM=xterm-256color)
  env:       EDITOR=vi
  graces:    stop 5s, kill 2s, drain 1s
  snapshot:  never, keep 5, restore false

sandbox build
  provider:  local
  command:   sh -c 'make watch && echo '\''done'\'''
  workspace: DIR/src/p (does not exist: created at the start)
  size:      120x40 (TERM=xterm-256color)
  env:       EDITOR=vi
  graces:    stop 5s, kill 2s, drain 250ms
  snapshot:  always, keep 3, restore "replace", exclude node_modules '*.log'
`
	if want = strings.ReplaceAll(want, "DIR", dir); stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

func TestCheckBuiltinDefault(t *testing.T) {
	dir := hermetic(t)
	code, stdout, _ := runCheckForTest(t)
	want := "config: built-in default (none of sandmux.toml, " + filepath.Join(dir, ".config/sandmux/config.toml") + " exists)\n"
	if code != exitOK || !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\nsandbox ") != 3 {
		t.Errorf("exit %d, stdout:\n%s\nwant it to start %q and list 3 sandboxes", code, stdout, want)
	}
	// Its shells start where sandmux was started, as tmux's do.
	if n := strings.Count(stdout, "  workspace: "+dir+"\n"); n != 3 {
		t.Errorf("%d of the built-in shells start in the current directory %s:\n%s", n, dir, stdout)
	}
}

func TestCheckErrors(t *testing.T) {
	hermetic(t)
	if err := os.WriteFile("bad.toml", []byte("[[sandbox]]\nname = \"a\"\nkill_grace = \"abc\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"invalid config", []string{"-c", "bad.toml"}, exitFailure, `bad.toml:3: sandbox[0].kill_grace: "abc" is not a duration`},
		{"missing file", []string{"-c", "nope.toml"}, exitFailure, "nope.toml: no such file"},
		{"unknown flag", []string{"-x"}, exitUsage, "usage: sandmux check [-c FILE]"},
		{"missing flag value", []string{"-c"}, exitUsage, "flag needs an argument"},
		{"extra argument", []string{"extra"}, exitUsage, `unexpected argument "extra"`},
		{"help", []string{"-h"}, exitOK, "usage: sandmux check [-c FILE]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCheckForTest(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr containing %q",
					code, stdout, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// check is reachable through the command table.
func TestCheckCommand(t *testing.T) {
	hermetic(t)
	var out, errOut bytes.Buffer
	if code := run([]string{"check"}, stdio{out: &out, err: &errOut}); code != exitOK || !strings.HasPrefix(out.String(), "config: ") {
		t.Errorf("sandmux check: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// hermetic isolates a test from the user's config, data and shell, and
// runs it in a fresh directory.
func hermetic(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("SHELL", "/bin/sh")
	t.Chdir(dir)
	return dir
}

// A replay sandbox runs no command: check says which cast it plays.
func TestCheckReplaySandbox(t *testing.T) {
	hermetic(t)
	doc := "[[sandbox]]\nname = \"review\"\nprovider = \"replay\"\nreplay = { file = \"/casts/agent run.cast\" }\n"
	if err := os.WriteFile("mine.toml", []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCheckForTest(t, "-c", "mine.toml")
	if code != exitOK || !strings.Contains(stdout, "  command:   none: it plays '/casts/agent run.cast'\n") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// check reports every local sandbox whose program is not found on PATH,
// and shows [server]'s settings.
func TestCheckReportsMissingProgramsAndServer(t *testing.T) {
	hermetic(t)
	doc := `[server]
on_hangup = "quit"
ssh_listen = "127.0.0.1:2222"
ssh_authorized_keys = "/k"

[[sandbox]]
name = "line"
command = "no-such-program-a --flag"

[[sandbox]]
name = "argv"
command = ["no-such-program-b", "x"]

[[sandbox]]
name = "fine"
command = "echo hi; exec cat"
`
	if err := os.WriteFile("mine.toml", []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCheckForTest(t, "-c", "mine.toml")
	want := "sandmux check: sandbox line: no-such-program-a is not found on PATH (install it, or give its full path)\n" +
		"sandmux check: sandbox argv: no-such-program-b is not found on PATH (install it, or give its full path)\n"
	if code != exitFailure || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, stderr, want)
	}
	if !strings.Contains(stdout, "\nserver\n  on_hangup: quit\n  ssh:       listen 127.0.0.1:2222, keys /k, read-only keys none\n") {
		t.Errorf("stdout does not show [server]:\n%s", stdout)
	}
}
