package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"
)

// Hostile names: each would, printed raw, write the user's clipboard (OSC
// 52), set the window title (OSC 0 and 2) or turn text red (CSI).
const (
	clipName  = "a\x1b]52;c;aGVsbG8=\x07b"
	titleName = "\x1b]0;pwned\x07"
	fifoName  = "fifo\x1b]52;c;aGVsbG8=\x07"
	lastName  = "zz\x1b]2;pwned\x07\x9d\u202e"
	linkName  = "link\x1b[31m"
	linkDest  = "dest\x1b]0;pwned\x07"
)

// terminalUnsafe says why out could change the terminal it is printed on,
// or "" when it cannot: no ESC (but, with progress, the carriage return and
// line erase sandmux itself writes), no BEL or other C0 control but newline and tab, no C1
// control, no invalid UTF-8 (whose raw C1 bytes some terminals obey), no
// bidi override.
func terminalUnsafe(out string, progress bool) string {
	for i, r := range out {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD"):
			return "invalid UTF-8"
		case r == 0x1b && progress && strings.HasPrefix(out[i:], "\x1b[K"), r == '\r' && progress:
		case r == 0x1b:
			return "ESC"
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			return "C0 control"
		case r >= 0x80 && r <= 0x9f:
			return "C1 control"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return "bidi control"
		}
	}
	return ""
}

func checkSafe(t *testing.T, what, out string) {
	t.Helper()
	if why := terminalUnsafe(out, false); why != "" {
		t.Errorf("%s prints a raw %s: %q", what, why, out)
	}
}

// hostileWorkspace makes a workspace, itself under a hostile name, holding
// files, symlinks (one pointing outside it) and a FIFO with hostile names.
func hostileWorkspace(t *testing.T, tmp string) string {
	t.Helper()
	ws := filepath.Join(tmp, "ws"+titleName)
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{clipName, titleName, lastName, linkDest} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(linkDest, filepath.Join(ws, linkName)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../"+linkDest, filepath.Join(ws, "out"+titleName)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, fifoName), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// sandmuxCmd runs the built binary, as a user would, and returns its exit
// code and output.
func sandmuxCmd(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := exec.Command(sandmuxBin, args...)
	c.Stdout, c.Stderr = &out, &errb
	c.Env = append(os.Environ(), env...)
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("run sandmux %q: %v", args, err)
	}
	return 0, out.String(), errb.String()
}

// TestContract_T1_SnapshotCommandsEscapeNames runs save, ls, verify and
// restore on a workspace and a store whose names carry escape sequences:
// nothing reaches stdout or stderr raw, and the names show escaped.
func TestContract_T1_SnapshotCommandsEscapeNames(t *testing.T) {
	tmp := t.TempDir()
	ws := hostileWorkspace(t, tmp)
	archive := filepath.Join(tmp, "snap"+titleName+".tar.zst")
	store := filepath.Join(tmp, "store"+clipName)
	restored := filepath.Join(tmp, "restored"+titleName)

	steps := []struct {
		args     []string
		wantCode int
		want     string // escaped text the output must show
	}{
		{[]string{"snapshot", "save", ws, "-o", archive}, exitOK, `left out fifo\x1b]52;c;aGVsbG8=\x07: not a file`},
		{[]string{"snapshot", "save", ws, "-o", archive}, exitOK, `left out out\x1b]0;pwned\x07: symlink to "../dest\x1b]0;pwned\a" points outside the workspace: not saved`},
		{[]string{"snapshot", "save", ws, "--sandbox", "box", "--store", store}, exitOK, `saved ` + tmp + `/ws\x1b]0;pwned\x07 to ` + tmp + `/store`},
		{[]string{"snapshot", "ls", "--store", store}, exitOK, `store` + `a\x1b]52;c;aGVsbG8=\x07b/box/`},
		{[]string{"snapshot", "ls", "--store", filepath.Join(tmp, "empty"+titleName)}, exitOK, `no snapshots in ` + tmp + `/empty\x1b]0;pwned\x07`},
		{[]string{"snapshot", "verify", archive}, exitOK, `ok: ` + tmp + `/snap\x1b]0;pwned\x07.tar.zst`},
		{[]string{"snapshot", "restore", archive, restored}, exitOK, `into ` + tmp + `/restored\x1b]0;pwned\x07`},
		{[]string{"snapshot", "restore", archive, restored}, exitFailure, `restored\x1b]0;pwned\x07`},
	}
	for _, st := range steps {
		code, out, errs := sandmuxCmd(t, nil, st.args...)
		what := strings.Join(st.args[:2], " ")
		if code != st.wantCode {
			t.Errorf("%s: exit %d, want %d; stdout %q, stderr %q", what, code, st.wantCode, out, errs)
		}
		checkSafe(t, what+" stdout", out)
		checkSafe(t, what+" stderr", errs)
		if !strings.Contains(out+errs, st.want) {
			t.Errorf("%s: output lacks the escaped %q:\nstdout %q\nstderr %q", what, st.want, out, errs)
		}
	}
	// The restore kept the names as they were: escaping is for printing.
	if target, err := os.Readlink(filepath.Join(restored, linkName)); err != nil || target != linkDest {
		t.Errorf("restored symlink: %q, %v", target, err)
	}
}

// TestContract_T1_HostileArchiveErrorsEscaped restores and verifies
// archives that are refused for names and link targets carrying escape
// sequences: the error names them escaped.
func TestContract_T1_HostileArchiveErrorsEscaped(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name string
		hdr  tar.Header
		want string
	}{
		{"escaping symlink", tar.Header{Name: "l" + titleName, Typeflag: tar.TypeSymlink, Linkname: "../" + linkDest}, `"../dest\x1b]0;pwned\a"`},
		{"dotdot", tar.Header{Name: "../" + clipName, Typeflag: tar.TypeReg}, `"../a\x1b]52;c;aGVsbG8=\ab"`},
		{"fifo", tar.Header{Name: fifoName, Typeflag: tar.TypeFifo}, `fifo\x1b]52;`},
	} {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tc.hdr.Mode = 0o644
		if err := tw.WriteHeader(&tc.hdr); err != nil {
			t.Fatal(err)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		archive := filepath.Join(tmp, tc.name+titleName+".tar")
		if err := os.WriteFile(archive, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"snapshot", "verify", archive}, {"snapshot", "restore", archive, filepath.Join(tmp, "dst"+clipName)}} {
			code, out, errs := sandmuxCmd(t, nil, args...)
			what := tc.name + ": " + args[1]
			if code != exitFailure {
				t.Errorf("%s: exit %d, want %d", what, code, exitFailure)
			}
			checkSafe(t, what+" stdout", out)
			checkSafe(t, what+" stderr", errs)
			if !strings.Contains(errs, tc.want) || !strings.Contains(errs, tc.name+`\x1b]0;pwned\x07.tar`) {
				t.Errorf("%s: stderr lacks the escaped %q: %q", what, tc.want, errs)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "dst"+clipName)); err == nil {
		t.Error("a refused archive created its destination")
	}
}

// TestContract_T1_SnapshotProgressEscapesNames runs save with stderr on a
// terminal, where the progress line shows the member being saved: only
// sandmux's own line-clearing sequences reach the terminal.
func TestContract_T1_SnapshotProgressEscapesNames(t *testing.T) {
	tmp := t.TempDir()
	ws := hostileWorkspace(t, tmp)
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	c := exec.Command(sandmuxBin, "snapshot", "save", ws, "-o", filepath.Join(tmp, "a.tar.zst"))
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, pts
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	shown, _ := io.ReadAll(ptm) // Ends with EIO once sandmux closed its side.
	if err := c.Wait(); err != nil {
		t.Fatalf("save: %v; stderr %q", err, shown)
	}
	if why := terminalUnsafe(string(shown), true); why != "" {
		t.Errorf("progress prints a raw %s: %q", why, shown)
	}
	if !strings.Contains(string(shown), `\x1b]2;pwned\x07`) {
		t.Errorf("progress does not show the last member escaped: %q", shown)
	}
	checkSafe(t, "save stdout", out.String())
}

// TestContract_T1_CheckEscapesConfigText checks that `sandmux check` shows
// a config's strings escaped, commands in a form a shell reads back, and
// that its errors are escaped too.
func TestContract_T1_CheckEscapesConfigText(t *testing.T) {
	hermetic(t)
	doc := `[[sandbox]]
name = "evil"
workspace = "/tmp/ws\u001b]0;pwned\u0007"
command = ["printf", "\u001b]52;c;aGVsbG8=\u0007"]
env = { TITLE = "\u001b]0;pwned\u0007" }
`
	if err := os.WriteFile("hostile.toml", []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCheckForTest(t, "-c", "hostile.toml")
	if code != exitOK {
		t.Fatalf("check: exit %d, stderr %q", code, errs)
	}
	checkSafe(t, "check stdout", out)
	for _, want := range []string{
		`workspace: /tmp/ws\x1b]0;pwned\x07`,
		`command:   printf $'\x1b]52;c;aGVsbG8=\x07'`,
		`env:       $'TITLE=\x1b]0;pwned\x07'`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check stdout lacks %q:\n%s", want, out)
		}
	}

	for _, bad := range []string{
		"[[sandbox]]\nname = \"evil\"\nprovider = \"\\u001b]0;pwned\\u0007\"\n", // refused by validation
		"[[sandbox]]\nname = \"evil\"\n[\x1b]52;c;aGVsbG8=\x07]\n",              // refused by the decoder
	} {
		if err := os.WriteFile("bad.toml", []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs = runCheckForTest(t, "-c", "bad.toml")
		if code != exitFailure || errs == "" {
			t.Fatalf("check of %q: exit %d, stderr %q", bad, code, errs)
		}
		checkSafe(t, "check stdout", out)
		checkSafe(t, "check stderr", errs)
	}
}

// TestContract_T1_HeadlessErrorsEscaped checks that record and screen
// print the errors of a start that failed on a hostile name escaped.
func TestContract_T1_HeadlessErrorsEscaped(t *testing.T) {
	tmp := t.TempDir()
	for _, args := range [][]string{
		{"screen", "--", "/nonexistent" + titleName},
		{"record", "-o", filepath.Join(tmp, "missing"+clipName, "x.cast"), "--", "true"},
		{"record", "-o", filepath.Join(tmp, "x.cast"), "--", "/nonexistent" + titleName},
	} {
		code, out, errs := sandmuxCmd(t, nil, args...)
		if code == exitOK || errs == "" {
			t.Errorf("%q: exit %d, stderr %q; want a failure", args, code, errs)
		}
		checkSafe(t, args[0]+" stdout", out)
		checkSafe(t, args[0]+" stderr", errs)
	}
}

// TestContract_T1_FlagErrorsEscaped passes every command an unknown flag
// named as a file a shell pattern could expand to: the flag package's
// complaint, which names it raw, reaches stderr escaped.
func TestContract_T1_FlagErrorsEscaped(t *testing.T) {
	for _, args := range [][]string{
		{"snapshot", "verify", "-" + titleName},
		{"check", "-" + titleName},
		{"record", "-" + titleName},
		{"screen", "-" + titleName},
		{"-" + titleName},
	} {
		var out, errb bytes.Buffer
		code := run(args, stdio{in: os.Stdin, out: &out, err: &errb})
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
		checkSafe(t, fmt.Sprintf("%q stderr", args), errb.String())
		if !strings.Contains(errb.String(), `-\x1b]0;pwned\x07`) {
			t.Errorf("%q: stderr does not name the flag escaped: %q", args, errb.String())
		}
	}
}
