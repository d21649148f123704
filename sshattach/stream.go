package sshattach

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"github.com/sandmux/sandmux/attach"
)

// errFinished is returned by Write and Finish once the stream finished.
var errFinished = errors.New("ssh attach: stream already finished")

// stream is one ssh session as an attach.Stream.
type stream struct {
	sess    ssh.Session
	hello   attach.Hello
	resizes <-chan attach.Size
	done    chan struct{} // closed by Finish

	// writeTimeout bounds one write: an SSH channel's write waits for
	// the client's window, and a client that reads nothing (stopped, or
	// its output piped into something that never reads) would hold the
	// writer, and with it the drawing and a quit, for ever.
	writeTimeout time.Duration
	cut          func() // closes the session's connection: a write waiting fails
	cutOnce      sync.Once
	wasCut       atomic.Bool

	mu       sync.Mutex // orders Write and Finish
	finished bool
	werr     error // the first write that failed: nothing follows it
	ended    attach.Exit
}

// newStream makes the stream of sess; its Finish closes done, which ends
// the session's Resizes. cut closes the session's connection.
func newStream(sess ssh.Session, h attach.Hello, resizes <-chan attach.Size, done chan struct{}, writeTimeout time.Duration, cut func()) *stream {
	return &stream{sess: sess, hello: h, resizes: resizes, done: done, writeTimeout: writeTimeout, cut: cut}
}

func (st *stream) Hello() attach.Hello         { return st.hello }
func (st *stream) Resizes() <-chan attach.Size { return st.resizes }

func (st *stream) Read(p []byte) (int, error) {
	select {
	case <-st.done:
		return 0, io.EOF
	default:
	}
	n, err := st.sess.Read(p)
	if err != nil {
		select {
		case <-st.done:
			return n, io.EOF
		default:
		}
	}
	return n, err
}

// Write draws p on the client's terminal. A client that takes nothing
// for writeTimeout is cut off (A11): its connection closes, this write
// and every later one fail, and Read returns an error, as when the
// client went away.
func (st *stream) Write(p []byte) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return 0, errFinished
	}
	return st.write(p)
}

// write writes p within writeTimeout. Called with mu held.
func (st *stream) write(p []byte) (int, error) {
	if st.werr != nil {
		return 0, st.werr
	}
	t := time.AfterFunc(st.writeTimeout, st.Cut)
	n, err := st.sess.Write(p)
	t.Stop()
	if err != nil || st.wasCut.Load() {
		if st.wasCut.Load() {
			err = fmt.Errorf("it took no output for %v: %w", st.writeTimeout, errCut)
		}
		st.werr = fmt.Errorf("write to %s: %w (it is cut off: it may attach again)", st.hello.Who, err)
		st.Cut() // Part of the output may have gone: nothing can follow it.
		return n, st.werr
	}
	return n, nil
}

// errCut is why a write failed once the stream was cut off.
var errCut = errors.New("cut off")

// Cut closes the session's connection at once: a write waiting for the
// client fails, and so does every later one. It does not wait.
func (st *stream) Cut() {
	st.cutOnce.Do(func() {
		st.wasCut.Store(true)
		st.cut()
	})
}

// Finish writes the ending on the remote terminal, which is raw, so each
// line ends in "\r\n", then exits the session with e.Code. Each write is
// bounded as Write's are.
func (st *stream) Finish(e attach.Exit) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return errFinished
	}
	st.finished, st.ended = true, e
	close(st.done)
	var b strings.Builder
	if e.Detached {
		b.WriteString("[detached]\r\n")
	}
	if sum := strings.TrimRight(strings.ReplaceAll(e.Summary, "\r\n", "\n"), "\n"); sum != "" {
		b.WriteString(strings.ReplaceAll(sum, "\n", "\r\n"))
		b.WriteString("\r\n")
	}
	_, werr := st.write([]byte(b.String()))
	if werr != nil {
		return werr // cut off: the client learns nothing more
	}
	// The exit status is a request on the connection, which a client that
	// stopped reading can hold up as it can a write.
	t := time.AfterFunc(st.writeTimeout, st.Cut)
	defer t.Stop()
	return st.sess.Exit(min(max(e.Code, 0), 255))
}

func (st *stream) exit() attach.Exit {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.ended
}

// forwardSizes passes a session's window changes on to sizes, newest
// first: a UI that has not read the last size yet gets only the newest. It
// closes sizes once the stream finished or the session's channel is gone,
// and takes window changes until the library closes them, from the pty
// request on, because the session's request loop blocks on each one
// until it is taken.
func forwardSizes(winch <-chan ssh.Window, sizes chan attach.Size, finished <-chan struct{}) {
	defer func() {
		for range winch {
		}
	}()
	defer close(sizes)
	first := true
	for {
		select {
		case <-finished:
			return
		case w, ok := <-winch:
			if !ok {
				return
			}
			if first {
				first = false // The pty request's own size, which Hello carries.
				continue
			}
			attach.OfferSize(sizes, attach.Size{Width: w.Width, Height: w.Height})
		}
	}
}
