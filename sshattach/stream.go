package sshattach

import (
	"errors"
	"io"
	"strings"
	"sync"

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

	mu       sync.Mutex // orders Write and Finish
	finished bool
	ended    attach.Exit
}

// newStream makes the stream of sess; its Finish closes done, which ends
// the session's Resizes.
func newStream(sess ssh.Session, h attach.Hello, resizes <-chan attach.Size, done chan struct{}) *stream {
	return &stream{sess: sess, hello: h, resizes: resizes, done: done}
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

func (st *stream) Write(p []byte) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return 0, errFinished
	}
	return st.sess.Write(p)
}

// Finish writes the ending on the remote terminal, which is raw, so each
// line ends in "\r\n", then exits the session with e.Code.
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
	_, werr := io.WriteString(st.sess, b.String())
	err := st.sess.Exit(min(max(e.Code, 0), 255))
	return errors.Join(werr, err)
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
			offer(sizes, attach.Size{Width: w.Width, Height: w.Height})
		}
	}
}

// offer replaces an unread size with sz; forwardSizes is the only sender.
func offer(sizes chan attach.Size, sz attach.Size) {
	select {
	case sizes <- sz:
		return
	default:
	}
	select {
	case <-sizes:
	default:
	}
	sizes <- sz
}
