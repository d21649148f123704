package headless

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

// Piped input is typed into the command, then ctrl+d ends it: cat, a real
// child on a real PTY, echoes the line and exits 0 at the end of input.
func TestTypeInputEndsWithEOF(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("hello from the pipe\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	screen := vt.New(40, 5)
	defer screen.Close()
	run, err := Start(t.Context(), "cat", []string{"cat"}, providers.Size{Cols: 40, Rows: 5}, session.Options{Screen: screen})
	if err != nil {
		t.Fatal(err)
	}
	input := TypeInput(r, run.Session())
	if err := run.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	input.Wait()
	if code := run.ExitCode(nil); code != 0 {
		t.Errorf("cat exited %d, want 0 at the end of its input", code)
	}
	if out := string(screen.Dump(nil, false, false)); !strings.Contains(out, "hello from the pipe") {
		t.Errorf("screen %q: the piped line never reached cat", out)
	}
}

// A command that cannot start is said about the command alone.
func TestStartErrorNamesTheCommand(t *testing.T) {
	argv := []string{filepath.Join(t.TempDir(), "no-such-program")}
	_, err := Start(t.Context(), "x", argv, providers.Size{Cols: 80, Rows: 24}, session.Options{})
	if err == nil {
		t.Fatal("a missing program started")
	}
	msg := StartError(argv, err).Error()
	if !strings.HasPrefix(msg, argv[0]+": ") || !errors.Is(StartError(argv, err), os.ErrNotExist) {
		t.Errorf("StartError: %q, want it to name %s and say it does not exist", msg, argv[0])
	}
}

// A recording is created private, refuses to replace a file unless
// forced, and an aborted one leaves nothing behind.
func TestRecordingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.cast")
	size := providers.Size{Cols: 80, Rows: 24}
	rec, err := NewRecording(path, false, size, []string{"echo", "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Finish(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("recording %v, %v: want a 0600 file", fi, err)
	}
	if _, err := NewRecording(path, false, size, nil); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a second recording at the same path: %v, want a refusal that names --force", err)
	}
	rec, err = NewRecording(path, true, size, nil)
	if err != nil {
		t.Fatalf("--force: %v", err)
	}
	if err := rec.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an aborted recording is still there: %v", err)
	}
}
