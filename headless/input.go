package headless

import (
	"errors"
	"os"
	"time"

	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/tty"
)

// eot is the terminal's end-of-file character (ctrl+d): at the start of a
// line it makes the child's read return 0 in canonical mode.
const eot = 0x04

// errClosing stops typing: the session is closing, and nothing reads
// input.
var errClosing = errors.New("the session is closing")

// TypedInput is standard input being typed into a headless session.
type TypedInput struct {
	pump *tty.Pump     // nil when nothing is typed
	stop chan struct{} // closed by Wait
}

// TypeInput types piped or redirected standard input into sess, then
// ends it with ctrl+d, as a user typing ahead would, so `echo 1+1 |
// sandmux screen -- python3 -q` ends. A terminal or /dev/null (a
// character device) is left alone: a terminal's keys are not meant for
// the hidden child, and /dev/null is what scripts leave behind when they
// give no input.
func TypeInput(in *os.File, sess *session.Session) *TypedInput {
	t := &TypedInput{stop: make(chan struct{})}
	if in == nil {
		return t
	}
	fi, err := in.Stat()
	if err != nil || fi.Mode()&(os.ModeCharDevice|os.ModeDevice) != 0 {
		return t
	}
	last := byte('\n')
	t.pump = tty.StartPump(in, 32*1024, func(b []byte) error {
		last = b[len(b)-1]
		if sess.Write(b) != nil {
			return errClosing
		}
		return nil
	}, func(why error) {
		if errors.Is(why, tty.ErrStopped) || errors.Is(why, errClosing) {
			return
		}
		t.typeEOF(sess, last) // the input ended, or can no longer be read
	})
	return t
}

// typeEOF types ctrl+d once the child has answered what it read, like a
// user. Typed too early (before a slow start, say), it reaches a line
// editor that switches the terminal out of canonical mode as a lost EOF
// mark; so while the child answers with more output and goes quiet
// again without exiting, it is typed again, a few times at most.
func (t *TypedInput) typeEOF(sess *session.Session, last byte) {
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
func (t *TypedInput) settle(sess *session.Session, since time.Time) bool {
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

// Wait stops reading (a pipe whose writer stays open would block for
// good) and joins the input goroutine.
func (t *TypedInput) Wait() {
	close(t.stop)
	t.pump.Stop()
}
