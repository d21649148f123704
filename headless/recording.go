package headless

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/termsafe"
)

// Recording is an asciicast file being written by `sandmux record`.
type Recording struct {
	f     *os.File
	Cast  *asciicast.Writer // a sink of the session's output
	Start time.Time         // what the events' times count from
}

// NewRecording creates the recording of argv at size, at path (a new
// file; with force, in place of what is there).
func NewRecording(path string, force bool, size providers.Size, argv []string) (*Recording, error) {
	f, err := createPrivate(path, force)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	h := asciicast.Header{
		Width: int(size.Cols), Height: int(size.Rows), Timestamp: start.Unix(),
		Command: termsafe.ShellQuote(argv),
		Env:     map[string]string{"TERM": providers.DefaultTerm, "SHELL": os.Getenv("SHELL")},
	}
	w, err := asciicast.NewWriter(f, h, start)
	if err != nil {
		_ = f.Close() // Best effort: the header error is the one to report.
		return nil, err
	}
	return &Recording{f: f, Cast: w, Start: start}, nil
}

// createPrivate makes a new file at path, 0600 (a umask only takes bits
// away), so that a recording, which holds whatever the command showed, is
// the user's alone (A6). O_EXCL never follows a
// link planted at path nor truncates a file there; force first removes
// what is at path (a link itself, not what it points to), and a file put
// back there meanwhile makes the create fail rather than be followed.
func createPrivate(path string, force bool) (*os.File, error) {
	if force {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("replace the recording %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("create recording: %s already exists: choose another -o, or add --force to replace it", path)
	}
	if err != nil {
		return nil, fmt.Errorf("create recording: %w (check that the directory exists and is writable)", err)
	}
	return f, nil
}

// Finish flushes and closes the file. Call it only after the session's
// consumer has been joined (Run.Finish), so that no event can follow.
func (r *Recording) Finish() error {
	return errors.Join(r.Cast.Flush(), r.f.Sync(), r.f.Close())
}

// Abort closes and removes a recording that never started.
func (r *Recording) Abort() error {
	return errors.Join(r.f.Close(), os.Remove(r.f.Name()))
}

// WriterSink shows a session's output on w (this terminal, while
// recording).
type WriterSink struct{ W io.Writer }

// Output writes text to W.
func (ws WriterSink) Output(text string) { _, _ = io.WriteString(ws.W, text) } // Best effort: the recording is what matters.
