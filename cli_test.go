package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// runBin runs the built sandmux with stdin from in (nil: /dev/null) and
// returns its stdout, stderr and exit code.
func runBin(t *testing.T, in string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), sandmuxBin, args...)
	cmd.Env = isolatedEnv(t.TempDir())
	if in != "" {
		cmd.Stdin = strings.NewReader(in)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if exitErr, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// Every spelling of help lists every command on stdout and exits 0.
func TestHelpListsEveryCommand(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help", "help"} {
		out, errOut, code := runBin(t, "", arg)
		if code != exitOK || errOut != "" {
			t.Errorf("sandmux %s: exit %d, stderr %q; want 0 and nothing", arg, code, errOut)
		}
		for _, c := range commands() {
			if c.name != "ctl" && !strings.Contains(out, c.usage) {
				t.Errorf("sandmux %s does not list %q:\n%s", arg, c.usage, out)
			}
		}
	}
}

// --version names the revision the binary was built from.
func TestVersionNamesRevision(t *testing.T) {
	out, _, code := runBin(t, "", "--version")
	if code != exitOK || !strings.HasPrefix(out, "sandmux ") {
		t.Fatalf("sandmux --version = %q (exit %d)", out, code)
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if fi, statErr := os.Stat(".git"); err != nil || statErr != nil || !fi.IsDir() {
		// The go command stamps a revision only in a checkout whose .git
		// is a directory (not in a worktree, whose .git is a file).
		t.Logf("not a plain git checkout (%v, %v): the revision is not checked", err, statErr)
	} else if rev := strings.TrimSpace(string(head))[:12]; !strings.Contains(out, rev) {
		t.Errorf("sandmux --version = %q, want revision %s in it", out, rev)
	}
	for _, alias := range []string{"version", "-v", "-V"} {
		if out2, _, _ := runBin(t, "", alias); out2 != out {
			t.Errorf("sandmux %s = %q, --version = %q: want the same", alias, out2, out)
		}
	}
}

func TestVersionString(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T00:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	if got, want := versionString(info, true), "v1.2.3 (revision 0123456789ab, 2026-12-01T00:00:00Z, modified) go1.26"; got != want {
		t.Errorf("versionString = %q, want %q", got, want)
	}
	if got := versionString(&debug.BuildInfo{GoVersion: "go1.26"}, true); got != "(devel) go1.26" {
		t.Errorf("versionString without VCS = %q", got)
	}
	if got := versionString(nil, false); !strings.Contains(got, "unknown") {
		t.Errorf("versionString without build info = %q", got)
	}
}

// Without a terminal the TUI says so in plain words, names the headless
// commands, and writes no escape code anywhere.
func TestNoTerminalSaysWhatToUse(t *testing.T) {
	out, errOut, code := runBin(t, "", "echo hi")
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	for _, want := range []string{"needs a terminal", "sandmux screen", "sandmux record"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not say %q", errOut, want)
		}
	}
	if strings.ContainsRune(out+errOut, 0x1b) || out != "" {
		t.Errorf("stdout %q, stderr %q: want no output on stdout and no escape codes", out, errOut)
	}
}

// A command that cannot start is named once, with no hint about a config
// that screen does not read.
func TestScreenStartErrorNamesCommandOnly(t *testing.T) {
	_, errOut, code := runBin(t, "", "screen", "no-such-command-sandmux")
	if code != exitFailure || strings.Count(errOut, "no-such-command-sandmux") != 1 ||
		strings.Contains(errOut, "config") || !strings.Contains(errOut, "not found") {
		t.Errorf("screen no-such-command: exit %d, stderr %q", code, errOut)
	}
}

// --timeout ends a command that would run for good, prints the screen it
// left, and exits 124. The timeout leaves the command time to print
// even on a slow, loaded machine: the race-built binary and the shell
// must start within it for "started" to be on the screen.
func TestScreenTimeout(t *testing.T) {
	out, _, code := runBin(t, "", "screen", "--size", "20x3", "--timeout", "5s", "--", "sh", "-c", "echo started; exec sleep 1000")
	if code != exitTimeout || !strings.Contains(out, "started") {
		t.Errorf("screen --timeout = %q (exit %d), want the screen and exit %d", out, code, exitTimeout)
	}
}

// Piped input is typed into the command and then ends with ctrl+d, so an
// interactive program reads it and exits.
func TestScreenTypesPipedInput(t *testing.T) {
	out, _, code := runBin(t, "echo typed-$((6*7))\n", "screen", "--size", "30x5", "--timeout", "60s", "--", "sh")
	if code != 0 || !strings.Contains(out, "typed-42") {
		t.Errorf("piped into sh: %q (exit %d), want typed-42 and exit 0", out, code)
	}
	need(t, "python3")
	// A line editor: the end of input must reach it after its prompt.
	out, _, code = runBin(t, "print(6*7)\n", "screen", "--size", "30x5", "--timeout", "60s", "--", "python3", "-q")
	if code != 0 || !strings.Contains(out, "42") {
		t.Errorf("piped into python3 -q: %q (exit %d), want 42 and exit 0", out, code)
	}
}

// The recording's header keeps the command's quoting.
func TestRecordHeaderQuotesCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.cast")
	if _, errOut, code := runBin(t, "", "record", "-o", file, "--size", "20x3", "--", "sh", "-c", `echo "a b"`); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Command string }
	if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &h); err != nil {
		t.Fatal(err)
	}
	if want := `sh -c 'echo "a b"'`; h.Command != want {
		t.Errorf("header command = %q, want %q", h.Command, want)
	}
}

// Recording from a terminal follows its resizes: the command sees the new
// size, and the file has an "r" event for it.
func TestRecordFollowsResize(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.cast")
	// The child reports each SIGWINCH it gets with the size it then sees.
	child := `sh -c 'trap "echo now \$(stty size)" WINCH; stty size; while :; do sleep 0.05; done'`
	tt := startTerm(t, 70, 20, sandmuxBin+" record -o "+file+" -- "+child)
	tt.waitText("20 70")
	tt.tmux("resize-window", "-x", "90", "-y", "25")
	tt.waitText("now 25 90")
	tt.keys("C-c")
	tt.waitExit()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"r", "90x25"`)) {
		t.Errorf("recording has no resize event to 90x25:\n%s", data)
	}
}
