package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/termsafe"
)

const recordUsage = "sandmux record -o FILE.cast [--force] [--size COLSxROWS] [--stop-grace D] [--kill-grace D] [--] CMD [ARGS...]"

// runRecord runs CMD in a local PTY through a session, headless, and writes
// its settled output as an asciicast v2 file. It exits with CMD's code
// (128+N for death by signal N); on SIGINT, SIGTERM or SIGHUP it tears CMD's
// group down with the escalation, finishes the file, and exits 130, 143 or
// 129.
func runRecord(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	out := fs.String("o", "", "write the recording to `FILE`, a new one (made 0600)")
	force := fs.Bool("force", false, "replace FILE when it exists (a link there is replaced, never followed)")
	sizeFlag := fs.String("size", "", "terminal size `COLSxROWS` (default: this terminal's, else 80x24)")
	stopGrace := fs.Duration("stop-grace", session.DefaultStopGrace, "on a signal, wait `D` after SIGHUP before SIGTERM")
	killGrace := fs.Duration("kill-grace", session.DefaultKillGrace, "then wait `D` after SIGTERM before SIGKILL")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", recordUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	argv := fs.Args()
	if *out == "" || len(argv) == 0 || *stopGrace <= 0 || *killGrace <= 0 {
		fs.Usage()
		return exitUsage
	}
	interactive := s.in != nil && term.IsTerminal(s.in.Fd())
	size, err := recordSize(*sizeFlag, s.in, interactive)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", err)
		return exitUsage
	}

	ctx, caught, stop := signalContext(ctx)
	defer stop()
	rec, err := newRecording(*out, *force, size, argv)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", err)
		return exitFailure
	}
	opts := session.Options{StopGrace: *stopGrace, KillGrace: *killGrace, DrainGrace: session.DefaultDrainGrace}
	opts.Sinks = []session.Sink{rec.cast}
	if interactive {
		opts.Sinks = append(opts.Sinks, writerSink{s.out})
	}
	run, err := startHeadless(ctx, "record", argv, size, opts)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", errors.Join(err, rec.abort()))
		return exitFailure
	}

	var input *stdinPump
	var resizes *resizeFollower
	if interactive {
		if input, err = startStdinPump(s.in, run.sess); err != nil {
			termsafe.Fprintln(s.err, "sandmux record: passing input through:", err)
		}
		if *sizeFlag == "" {
			resizes = followResizes(s.in, run.sess, rec.cast)
		}
	}
	closeErr := run.finish(ctx)
	resizes.stop()
	input.stop()
	if err := rec.finish(); err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", err)
		return exitFailure
	}
	if closeErr != nil && caught() == nil {
		termsafe.Fprintln(s.err, "sandmux record:", closeErr)
	}
	return run.exitCode(caught())
}

func recordSize(flagValue string, in *os.File, interactive bool) (providers.Size, error) {
	if flagValue != "" {
		return providers.ParseSize(flagValue)
	}
	if interactive {
		if w, h, err := term.GetSize(in.Fd()); err == nil && w > 0 && h > 0 {
			return providers.Size{Cols: uint16(w), Rows: uint16(h)}, nil
		}
	}
	return providers.Size{Cols: 80, Rows: 24}, nil
}

// recording is an asciicast file being written.
type recording struct {
	f    *os.File
	cast *asciicast.Writer
}

func newRecording(path string, force bool, size providers.Size, argv []string) (*recording, error) {
	f, err := createPrivate(path, force)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	h := asciicast.Header{
		Width: int(size.Cols), Height: int(size.Rows), Timestamp: start.Unix(),
		Command: shellQuote(argv),
		Env:     map[string]string{"TERM": providers.DefaultTerm, "SHELL": os.Getenv("SHELL")},
	}
	w, err := asciicast.NewWriter(f, h, start)
	if err != nil {
		_ = f.Close() // Best effort: the header error is the one to report.
		return nil, err
	}
	return &recording{f: f, cast: w}, nil
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

// finish flushes and closes the file. Called only after the session's
// consumer has been joined, so no event can follow.
func (r *recording) finish() error {
	return errors.Join(r.cast.Flush(), r.f.Sync(), r.f.Close())
}

// abort closes and removes a recording that never started.
func (r *recording) abort() error {
	return errors.Join(r.f.Close(), os.Remove(r.f.Name()))
}

// writerSink shows the output on this terminal while recording.
type writerSink struct{ w io.Writer }

func (ws writerSink) Output(text string) { _, _ = io.WriteString(ws.w, text) } // Best effort: the recording is what matters.

// stdinPump puts the terminal in raw mode and passes keystrokes to the
// session until stopped; stop restores the terminal and waits for the pump.
type stdinPump struct {
	in    *os.File
	state *term.State
	r     cancelreader.CancelReader
	wg    sync.WaitGroup
}

func startStdinPump(in *os.File, sess *session.Session) (*stdinPump, error) {
	state, err := term.MakeRaw(in.Fd())
	if err != nil {
		return nil, fmt.Errorf("raw mode: %w", err)
	}
	r, err := cancelreader.NewReader(in)
	if err != nil {
		_ = term.Restore(in.Fd(), state) // Best effort: reported below.
		return nil, fmt.Errorf("read terminal: %w", err)
	}
	p := &stdinPump{in: in, state: state, r: r}
	p.wg.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				_ = sess.Write(buf[:n]) // Best effort: input to a closing session is moot.
			}
			if err != nil {
				return
			}
		}
	})
	return p, nil
}

func (p *stdinPump) stop() {
	if p == nil {
		return
	}
	p.r.Cancel()
	p.wg.Wait()
	_ = p.r.Close()                      // Best effort.
	_ = term.Restore(p.in.Fd(), p.state) // Best effort: nothing better to do on exit.
}
