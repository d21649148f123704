// Package replay opens an asciicast v2 recording as a pane, so that a
// recorded run can be reviewed beside live ones: the PTY's output is the
// recording's output at the recording's pace (times a speed), and the
// pane exits 0 at its end, or plays it again when it loops.
//
// It owns the pacing and the replay's life (end, loop, stop). It does not
// own the file format (package asciicast) or the screen the output draws
// on. No process runs: input is discarded, a resize changes nothing (the
// output was drawn for the recording's sizes), and a signal that would end
// a process ends the replay instead. The PTY starts no goroutine: its Read
// waits out each pause itself, and Close or a signal wakes it.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/termsafe"
)

// Provider opens recordings as PTYs.
type Provider struct{}

// New returns the replay provider.
func New() *Provider { return &Provider{} }

// Descriptor registers the replay provider. Its sandboxes have no
// workspace to snapshot or restore.
var Descriptor = providers.Descriptor{
	Name:         "replay",
	New:          func(providers.Deps) providers.Provider { return New() },
	OptionKeys:   OptionKeys,
	CheckOptions: providers.CheckWith(ParseOptions),
	Workspace:    providers.WorkspaceNone,
}

// Open opens the spec's recording and checks its header, so that a
// missing or broken file fails the pane at once, naming the file.
func (p *Provider) Open(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
	o, err := ParseOptions(spec.Options)
	if err != nil {
		return nil, fmt.Errorf("open replay for %q: %w", spec.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open replay of %s: %w", o.File, err)
	}
	// A FIFO or device would block the open or never end: a recording is
	// a regular file.
	if fi, err := os.Stat(o.File); err != nil {
		return nil, fmt.Errorf("open replay: %w (check replay.file in the config)", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open replay of %s: not a regular file (set replay.file to an asciicast v2 recording)", o.File)
	}
	f, err := os.Open(o.File)
	if err != nil {
		return nil, fmt.Errorf("open replay: %w (check replay.file in the config)", err)
	}
	dec, err := asciicast.NewDecoder(f)
	if err != nil {
		_ = f.Close() // Best effort: the header error is the one to report.
		return nil, fmt.Errorf("open replay of %s: %w", o.File, err)
	}
	return &pty{opts: o, f: f, dec: dec, stop: make(chan struct{}), ended: make(chan struct{})}, nil
}

// pty is one recording being played.
type pty struct {
	opts Options

	stopOnce sync.Once
	stop     chan struct{} // closed by Close or an ending signal: Read returns EOF

	endOnce sync.Once
	ended   chan struct{}        // closed once the replay ended; status is set
	status  providers.ExitStatus // written before ended closes

	// What Read uses, one Read at a time. f is never reassigned, so Close
	// may close it under a Read: the Read then sees stop.
	readMu  sync.Mutex
	f       *os.File
	dec     *asciicast.Decoder
	pending []byte  // the rest of the event being read
	last    float64 // the time of the last output event played
	played  bool    // this round played output: a loop may start again
}

// Read returns the recording's output, each event once its pause has
// passed, then io.EOF at the end (a loop never ends) or once stopped.
func (t *pty) Read(p []byte) (int, error) {
	t.readMu.Lock()
	defer t.readMu.Unlock()
	for len(t.pending) == 0 {
		if err := t.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
}

// next waits for the next output event and makes it pending.
func (t *pty) next() error {
	select {
	case <-t.stop:
		return io.EOF
	default:
	}
	e, err := t.dec.Next()
	switch {
	case err == io.EOF && t.opts.Loop && t.played:
		return t.rewind()
	case err == io.EOF:
		t.end(providers.ExitStatus{Code: 0})
		return io.EOF
	case err != nil:
		return t.fail(err)
	case e.Kind != asciicast.KindOutput || e.Data == "":
		return nil // input, sizes and markers draw nothing
	}
	gap := asciicast.Gap(t.last, e.Time, t.dec.Header.IdleTimeLimit, t.opts.Speed)
	t.last = e.Time
	if !t.wait(gap) {
		return io.EOF
	}
	t.pending, t.played = []byte(e.Data), true
	return nil
}

// wait waits d, or until stopped; it reports whether d passed.
func (t *pty) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.stop:
		return false
	}
}

// loopPause separates two rounds of a loop (at speed 1), so the end of a
// recording shows before it starts again.
const loopPause = 2 * time.Second

// rewind starts the recording again after a pause, on a reset screen: a
// recording starts on a blank terminal in its default modes.
func (t *pty) rewind() error {
	if !t.wait(time.Duration(float64(loopPause) / t.opts.Speed)) {
		return io.EOF
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return t.fail(err)
	}
	dec, err := asciicast.NewDecoder(t.f)
	if err != nil {
		return t.fail(err)
	}
	t.dec, t.last, t.played = dec, 0, false
	t.pending = []byte("\x1bc") // RIS: the terminal as it was at the start
	return nil
}

// fail ends the replay with exit status 1, and shows why as the pane's
// last line, since a pane has no other place for it.
func (t *pty) fail(err error) error {
	select {
	case <-t.stop:
		return io.EOF // Close closed the file under the read
	default:
	}
	t.end(providers.ExitStatus{Code: 1})
	msg := fmt.Sprintf("replay of %s: %v", t.opts.File, err)
	t.pending = []byte("\r\n\x1b[0m[" + termsafe.String(msg) + "]\r\n")
	t.stopOnce.Do(func() { close(t.stop) })
	return nil
}

func (t *pty) end(st providers.ExitStatus) {
	t.endOnce.Do(func() {
		t.status = st
		close(t.ended)
	})
}

// Write discards input: nothing runs to read it.
func (t *pty) Write(p []byte) (int, error) { return len(p), nil }

// Resize changes nothing: the output was drawn for the recording's sizes.
func (t *pty) Resize(providers.Size) error { return nil }

// Signal ends the replay as the signal would end a process, unless a
// process would ignore it by default.
func (t *pty) Signal(sig syscall.Signal) error {
	switch sig {
	case 0, syscall.SIGCHLD, syscall.SIGWINCH, syscall.SIGURG, syscall.SIGCONT:
		return nil
	}
	t.halt(providers.ExitStatus{Code: -1, Signal: sig})
	return nil
}

func (t *pty) halt(st providers.ExitStatus) {
	t.end(st)
	t.stopOnce.Do(func() { close(t.stop) })
}

// Wait returns once the replay ended: 0 at the recording's end, 1 when it
// failed midway, the signal when one ended it.
func (t *pty) Wait(ctx context.Context) (providers.ExitStatus, error) {
	select {
	case <-t.ended:
		return t.status, nil
	case <-ctx.Done():
		return providers.ExitStatus{}, fmt.Errorf("wait for replay of %s: %w", t.opts.File, context.Cause(ctx))
	}
}

// GroupAlive reports whether the replay goes on.
func (t *pty) GroupAlive() (bool, error) {
	select {
	case <-t.ended:
		return false, nil
	default:
		return true, nil
	}
}

// Close stops the replay (as a hangup, if it was still playing) and
// closes the file; a Read waiting out a pause returns io.EOF at once.
func (t *pty) Close() error {
	t.halt(providers.ExitStatus{Code: -1, Signal: syscall.SIGHUP})
	err := t.f.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

var _ providers.Provider = (*Provider)(nil)
