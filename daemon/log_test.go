package daemon

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandmux/sandmux/termsafe"
)

func TestStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/state")
	if got, err := LogPath("work"); err != nil || got != "/var/state/sandmux/work.log" {
		t.Errorf("LogPath(work) = %q, %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if got, err := StateDir(); err != nil || got != "/home/u/.local/state/sandmux" {
		t.Errorf("StateDir with a relative XDG_STATE_HOME = %q, %v", got, err)
	}
	if _, err := LogPath("a/b"); err == nil {
		t.Error("LogPath accepted a name with a slash")
	}
	for socket, want := range map[string]string{"/x/work.sock": "work", "/x/y": "y", "/": "socket", "/x/..sock": "socket"} {
		if got := LogName(socket); got != want {
			t.Errorf("LogName(%q) = %q, want %q", socket, got, want)
		}
	}
}

// A log past MaxLog is rotated when the next server starts, so a name's
// logs stay bounded.
func TestOpenLogRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandmux", "n.log")
	f, from, err := openLog(path)
	if err != nil || from != 0 {
		t.Fatalf("openLog of a new log: %d, %v", from, err)
	}
	if _, err := f.Write(bytes.Repeat([]byte("x"), MaxLog+1)); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	f, from, err = openLog(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if from != 0 {
		t.Errorf("rotated log starts at %d, want 0", from)
	}
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != MaxLog+1 {
		t.Errorf("old log: %v", err)
	}
	// Under MaxLog it is appended to.
	if err := os.WriteFile(path, []byte("earlier run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, from, err = openLog(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("this run\n")
	_ = f.Close()
	if got := logTail(path, from); got != "this run" {
		t.Errorf("logTail = %q, want only this run's output", got)
	}
}

func TestLogTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.log")
	long := strings.Repeat("a", tailSize) + "\nlast line\n"
	cases := []struct{ text, want string }{
		{"", "(it wrote nothing)"},
		{"one\ntwo\n", "one\ntwo"},
		{long, "last line"},
		{"\x1b[2Jboom\n", `\x1b[2Jboom`},
	}
	for _, c := range cases {
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := logTail(path, 0); got != c.want {
			t.Errorf("logTail(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got := logTail(filepath.Join(t.TempDir(), "none"), 0); !strings.Contains(got, "cannot read") {
		t.Errorf("logTail of a missing log = %q", got)
	}
}

// Whatever a server wrote, the tail is bounded and each line is safe to
// print.
func FuzzLogTail(f *testing.F) {
	f.Add([]byte("config broken: \x1b]0;pwned\a\n"), int64(0))
	f.Add([]byte(strings.Repeat("é", tailSize)), int64(3))
	f.Add([]byte("\xff\xfe\u202e\n\n"), int64(1))
	path := filepath.Join(f.TempDir(), "l.log")
	f.Fuzz(func(t *testing.T, b []byte, from int64) {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		from = min(max(from, 0), int64(len(b)))
		got := logTail(path, from)
		for _, line := range strings.Split(got, "\n") {
			// Escaped text is safe, and escaping it again changes only
			// its backslashes.
			if !utf8.ValidString(line) || strings.ReplaceAll(termsafe.String(line), `\\`, `\`) != line {
				t.Errorf("unsafe line %q in tail of %q", line, b)
			}
		}
		if len(got) > 4*tailSize+32 {
			t.Errorf("tail of %d bytes", len(got))
		}
	})
}

// A running server's log is rotated by RotateLog, and what it writes
// next, to stdout or stderr, goes to the new log.
func TestRotateLog(t *testing.T) {
	env(t)
	log, err := LogPath("r")
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := openLog(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "rotate", "r")
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	_ = f.Close()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	if b, err := os.ReadFile(log); err != nil || string(b) != "after rotation\nstdout too\n" {
		t.Errorf("new log %q, %v", b, err)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() <= MaxLog {
		t.Errorf("rotated log: %v, %v", fi, err)
	}
	// Here stderr is not the log: nothing happens.
	if err := RotateLog("r"); err != nil {
		t.Errorf("RotateLog in the foreground: %v", err)
	}
	if _, err := os.Stat(log); err != nil {
		t.Errorf("RotateLog in the foreground moved the log: %v", err)
	}
}

// A server's log is rotated by its own writes once past MaxLog, with no
// attach or start to do it (A17).
func TestContract_A17_LogRotatedAtAnyWrite(t *testing.T) {
	env(t)
	log, err := LogPath("w")
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := openLog(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "rotate-writes", "w")
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	_ = f.Close()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	fi, err := os.Stat(log)
	if err != nil || fi.Size() > MaxLog {
		t.Fatalf("the log after writing past MaxLog: %v, %v; want it rotated", fi, err)
	}
	if b, err := os.ReadFile(log); err != nil || !bytes.HasSuffix(b, []byte("after rotation\n")) {
		t.Errorf("the new log does not end with the last line written: %v", err)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() <= MaxLog {
		t.Errorf("rotated log: %v, %v", fi, err)
	}
}
