package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/muesli/cancelreader"

	"github.com/sandmux/sandmux/session"
)

// eot is the terminal's end-of-file character (ctrl+d): at the start of a
// line it makes the child's read return 0 in canonical mode.
const eot = 0x04

// typedInput is standard input being typed into a headless session.
type typedInput struct {
	r    io.Reader
	cr   cancelreader.CancelReader // set for a pipe, whose read can block for good
	stop chan struct{}             // closed by wait
	wg   sync.WaitGroup
}

// typeInput types piped or redirected standard input into sess, then ends
// it with ctrl+d, as a user typing ahead would, so `echo 1+1 | sandmux
// screen -- python3 -q` ends. A terminal or /dev/null (a character device)
// is left alone: a terminal's keys are not meant for the hidden child, and
// /dev/null is what scripts leave behind when they give no input.
func typeInput(in *os.File, sess *session.Session) *typedInput {
	t := &typedInput{stop: make(chan struct{})}
	if in == nil {
		return t
	}
	fi, err := in.Stat()
	if err != nil || fi.Mode()&(os.ModeCharDevice|os.ModeDevice) != 0 {
		return t
	}
	t.r = in
	if fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		if t.cr, err = cancelreader.NewReader(in); err != nil {
			return &typedInput{stop: t.stop} // Best effort: the command runs without input.
		}
		t.r = t.cr
	}
	t.wg.Go(func() { t.pump(sess) })
	return t
}

func (t *typedInput) pump(sess *session.Session) {
	last := byte('\n')
	buf := make([]byte, 32*1024)
	for {
		n, err := t.r.Read(buf)
		if n > 0 {
			last = buf[n-1]
			if sess.Write(buf[:n]) != nil {
				return // The session is closing: nothing reads input.
			}
		}
		if errors.Is(err, cancelreader.ErrCanceled) {
			return
		}
		if err != nil {
			break
		}
	}
	// Like a user, type ctrl+d once the child has answered what it read.
	// Typed too early (before a slow start, say), it reaches a line
	// editor that switches the terminal out of canonical mode as a lost
	// EOF mark; so while the child answers with more output and goes
	// quiet again without exiting, it is typed again, a few times at most.
	end := []byte{eot}
	if last != '\n' {
		end = []byte{eot, eot} // The first ends the partial line.
	}
	var typedAt time.Time
	for range eotTries {
		if !t.settle(sess, typedAt) {
			return
		}
		typedAt = time.Now()
		if sess.Write(end) != nil {
			return // Best effort: a child that exited reads nothing.
		}
		end = []byte{eot}
	}
}

// eotTries bounds how often ctrl+d is typed at the end of input.
const eotTries = 3

// inputSettle is how long the child must be quiet before ctrl+d is typed.
const inputSettle = 150 * time.Millisecond

// settle waits until sess has written something after since (anything,
// when since is zero) and then nothing for inputSettle; false if the
// session exited or input was stopped first.
func (t *typedInput) settle(sess *session.Session, since time.Time) bool {
	timer := time.NewTimer(inputSettle)
	defer timer.Stop()
	for {
		select {
		case <-sess.Exited():
			return false
		case <-t.stop:
			return false
		case <-timer.C:
			last := sess.LastOutput()
			idle := time.Since(last)
			switch {
			case !since.IsZero() && !last.After(since):
				timer.Reset(inputSettle) // No answer yet.
			case idle < inputSettle:
				timer.Reset(inputSettle - idle)
			default:
				return true
			}
		}
	}
}

// wait stops reading (a pipe whose writer stays open would block for good)
// and joins the input goroutine.
func (t *typedInput) wait() {
	close(t.stop)
	if t.cr != nil {
		t.cr.Cancel()
	}
	t.wg.Wait()
	if t.cr != nil {
		_ = t.cr.Close() // Best effort: the file itself stays open.
	}
}

// startError is a headless command's failure to start, said about the
// command alone: the provider's own hint speaks of a config that screen
// and record do not use.
func startError(argv []string, err error) error {
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		return fmt.Errorf("%s: %w (check its name, or give its path)", argv[0], execErr.Err)
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("%s: %w", argv[0], pathErr.Err)
	}
	return err
}
