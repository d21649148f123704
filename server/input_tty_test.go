package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/attach"
)

// handedTerminal is a stream whose client handed its terminal over: a
// real PTY's slave, opened anew and non-blocking, as attach.Conn holds
// one.
type handedTerminal struct {
	io.Reader // never read: the guard must read the terminal
	f         *os.File
}

func (h handedTerminal) Terminal() attach.DeadlineReader { return eofReader{h.f} }

// eofReader says io.EOF for every end but a deadline, as attach's does.
type eofReader struct{ f *os.File }

func (r eofReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF
	}
	return n, err
}

func (r eofReader) SetReadDeadline(t time.Time) error { return r.f.SetReadDeadline(t) }

// The guard reads a terminal the client handed over itself, with no
// goroutine of its own: keys as they come, a lone ESC as the Escape key
// once escWait passed (the read's deadline), and the terminal hanging up
// as the input's end.
func TestInputGuardReadsAHandedTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	raw, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	raw.Lflag &^= unix.ICANON | unix.ECHO
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, raw); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", tty.Fd()), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "handed")
	defer f.Close()
	g := newInputGuard(handedTerminal{f: f}, false)
	defer g.Close(nil)
	select {
	case <-g.ended:
	default:
		t.Fatal("the guard started a reader of its own for a handed terminal")
	}
	read := func() string {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			p := make([]byte, 64)
			n, err := g.Read(p)
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- string(p[:n])
		}()
		select {
		case s := <-got:
			return s
		case <-time.After(10 * time.Second):
			t.Fatal("the guard returned nothing")
			return ""
		}
	}
	if _, err := ptmx.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	if s := read(); s != "k" {
		t.Errorf("typed k, the guard gave %q", s)
	}
	if _, err := ptmx.Write([]byte("\x1b")); err != nil {
		t.Fatal(err)
	}
	if s := read(); s != escapeKey {
		t.Errorf("a lone ESC came through as %q, want %q", s, escapeKey)
	}
	_ = ptmx.Close()
	if s := read(); s != "error: EOF" {
		t.Errorf("after the terminal hung up the guard gave %q, want io.EOF", s)
	}
}
