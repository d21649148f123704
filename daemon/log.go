package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sandmux/sandmux/termsafe"
)

const (
	// MaxLog is the size past which a server's log is rotated, when the
	// next server of that name starts or when the running one calls
	// RotateLog: NAME.log becomes NAME.log.1, replacing the one before,
	// so a name's logs take about twice this at most (plus what a
	// server writes between two RotateLog calls).
	MaxLog = 4 << 20
	// tailSize bounds how much of the log an error quotes.
	tailSize = 2 << 10
)

// openLog opens the log at path for appending, creating its directory
// (0700) and the file (0600), after rotating a log grown past MaxLog. It
// returns where this server's output starts in the file, so an error
// quotes only what this server wrote.
func openLog(path string) (*os.File, int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, 0, fmt.Errorf("create the log directory: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxLog {
		if err := os.Rename(path, path+".1"); err != nil {
			return nil, 0, fmt.Errorf("rotate the server log %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("open the server log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // Best effort: the Stat error is the one to report.
		return nil, 0, fmt.Errorf("open the server log: %w", err)
	}
	return f, fi.Size(), nil
}

// logTail is the end of what a server wrote to its log from offset on,
// whole lines of at most tailSize bytes, escaped for a terminal: the
// server's messages quote config values and remote errors.
func logTail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read it: %v)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(cannot read it: %v)", err)
	}
	start := max(from, fi.Size()-tailSize)
	b, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Sprintf("(cannot read it: %v)", err)
	}
	if start > from {
		// Cut mid-line: start at the next whole line, if there is one.
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "(it wrote nothing)"
	}
	return termsafe.Lines(string(b))
}

// RotateLog keeps the log of a server that Start started bounded while it
// runs: when this process's stdout and stderr are the log of server name
// and it has grown past MaxLog, it becomes NAME.log.1 and both are
// pointed at a new, empty log. A server calls it at moments of its
// choosing (each attach, say), not on a timer, so an idle server still
// never wakes. It does nothing when stderr is not that log (a server run
// in the foreground).
func RotateLog(name string) error {
	path, err := LogPath(name)
	if err != nil {
		return err
	}
	size, ok, err := stderrIs(path)
	if err != nil || !ok || size <= MaxLog {
		return err
	}
	if err := os.Rename(path, path+".1"); err != nil {
		return fmt.Errorf("rotate the server log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("rotate the server log %s: %w", path, err)
	}
	defer f.Close() // Best effort: stdout and stderr hold their own copies.
	return redirectStdio(f)
}

// RotatingLog is w, the writer of a server's log, rotated by RotateLog
// after every write: a log grows past MaxLog by at most one line, however
// long the server runs without an attach, whoever makes it write (a
// stranger's refused SSH keys included). In the foreground, where stderr
// is not the log, it only writes. A rotation that fails is said once, in
// the log.
func RotatingLog(w io.Writer, name string) io.Writer {
	return &rotatingLog{w: w, name: name}
}

type rotatingLog struct {
	w      io.Writer
	name   string
	failed bool
}

// Write writes p, then rotates; the caller (a log.Logger) serialises
// writes.
func (r *rotatingLog) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if rerr := RotateLog(r.name); rerr != nil && !r.failed {
		r.failed = true
		_, _ = fmt.Fprintln(r.w, rerr) // Best effort: said where the log goes.
	}
	return n, err
}
