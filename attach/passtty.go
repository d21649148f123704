package attach

// Handing the terminal to the server. A local client whose standard
// input and output are one terminal opens that terminal afresh and
// passes the new descriptor over the socket (SCM_RIGHTS, in a 't'
// frame) once the server said ok and the terminal is raw. The server
// then reads the keys and draws the frames on the terminal itself, as
// tmux's server does: a key and its echo cross no client process and no
// socket, and a flood's frames are written once, not relayed. The wire
// still carries the sizes ('r') and the end ('x'), and the client still
// owns the terminal's modes: it made it raw and restores it after the
// 'x' frame, by which time the server has closed its descriptor.
//
// The client opens the terminal again (through /proc/self/fd) rather
// than passing its standard input, so the open file the server makes
// non-blocking is its own: the shell's standard input never is.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/nbio"
)

// frameTTY carries the client's terminal as SCM_RIGHTS, once, right
// after the attach reply, when the request said tty.
const frameTTY frameType = 't'

// openPassable opens the terminal that in and out both are, anew, for
// the server to read and draw; nil when they are not one terminal or it
// cannot be opened again (it is then relayed over the wire).
func openPassable(in, out *os.File) *os.File {
	if in == nil || out == nil {
		return nil
	}
	var si, so unix.Stat_t
	if unix.Fstat(int(in.Fd()), &si) != nil || unix.Fstat(int(out.Fd()), &so) != nil {
		return nil
	}
	if si.Mode&unix.S_IFMT != unix.S_IFCHR || si.Rdev != so.Rdev || !isTerminal(int(in.Fd())) {
		return nil
	}
	fd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", in.Fd()), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var sn unix.Stat_t
	if unix.Fstat(fd, &sn) != nil || sn.Rdev != si.Rdev || !isTerminal(fd) {
		_ = unix.Close(fd) // Best effort: not the terminal after all.
		return nil
	}
	return os.NewFile(uintptr(fd), "terminal")
}

func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// sendTTY passes f to the server in a 't' frame.
func sendTTY(c *net.UnixConn, f *os.File) error {
	var frame [headerLen + 1]byte
	putHeader(frame[:], frameTTY, 1)
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout)) // Best effort: bounds a stalled server.
	defer c.SetWriteDeadline(time.Time{})
	n, _, err := c.WriteMsgUnix(frame[:], unix.UnixRights(int(f.Fd())), nil)
	if err == nil && n != len(frame) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("attach: hand the terminal to the server: %w (is it still running?)", err)
	}
	return nil
}

// errNoTTY means a client that said it would hand over its terminal
// did not.
var errNoTTY = errors.New("the client did not hand over the terminal it said it would")

// recvTTY takes the terminal a client passes in its 't' frame, made
// non-blocking so that reads and writes go through the runtime's poller
// (deadlines, and Close ending a read that waits). It waits at most
// writeTimeout for it.
func recvTTY(c *net.UnixConn) (*os.File, error) {
	_ = c.SetReadDeadline(time.Now().Add(writeTimeout)) // Best effort: a client that never sends is dropped.
	defer c.SetReadDeadline(time.Time{})
	var frame [headerLen + 1]byte
	oob := make([]byte, unix.CmsgSpace(4*4)) // room for a few: more than one is refused, never kept
	// Go's ReadMsgUnix asks for MSG_CMSG_CLOEXEC: no pane's child
	// inherits the descriptor, even for an instant.
	n, oobn, flags, _, err := c.ReadMsgUnix(frame[:], oob)
	fds := rights(oob[:oobn])
	if err == nil && n < len(frame) {
		_, err = io.ReadFull(c, frame[n:])
	}
	switch {
	case err != nil:
		err = fmt.Errorf("%w: %w", errNoTTY, err)
	case flags&unix.MSG_CTRUNC != 0 || len(fds) != 1:
		err = fmt.Errorf("%w: %d descriptors", errNoTTY, len(fds))
	case frameType(frame[0]) != frameTTY || frame[1] != 0 || frame[2] != 0 || frame[3] != 0 || frame[4] != 1:
		err = fmt.Errorf("%w: a %q frame came instead", errFrame, frame[0])
	case !isTerminal(fds[0]):
		err = fmt.Errorf("%w: what it passed is no terminal", errNoTTY)
	}
	if err == nil {
		err = unix.SetNonblock(fds[0], true)
	}
	if err != nil {
		for _, fd := range fds {
			_ = unix.Close(fd) // Best effort: refused.
		}
		return nil, err
	}
	return os.NewFile(uintptr(fds[0]), "client terminal"), nil
}

// rights is the descriptors an SCM_RIGHTS message in oob carries.
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if fs, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, fs...)
		}
	}
	return fds
}

// takeTTY receives the terminal of a client that said it hands it over;
// nothing may have come before it.
func takeTTY(c net.Conn, buffered []byte) (*os.File, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok || len(buffered) > 0 {
		return nil, fmt.Errorf("%w: it sent something else first", errNoTTY)
	}
	return recvTTY(uc)
}

// DeadlineReader is a terminal read with a deadline.
type DeadlineReader interface {
	io.Reader
	SetReadDeadline(t time.Time) error
}

// Terminal is the terminal the client handed over, to read its keys
// from, or nil when the client relays them. A read past its deadline
// fails with os.ErrDeadlineExceeded; once the terminal went away (its
// emulator closed: EIO), or the client did, or Finish, Cut or Close
// closed it, reads return io.EOF. It is for a reader that waits on
// nothing else (the server's input guard, which waits out an ESC with
// the deadline): it reads in its own goroutine, no hand-off between.
func (s *Conn) Terminal() DeadlineReader {
	if s.tty == nil {
		return nil
	}
	return ttyReader{s.tty}
}

// ttyReader reads a handed-over terminal, every end said as io.EOF.
type ttyReader struct{ f *os.File }

func (r ttyReader) Read(p []byte) (int, error) {
	n, err := nbio.ReadWait(r.f, p)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF // EIO (hung up), closed here, or 0 bytes: gone either way
	}
	return n, err
}

func (r ttyReader) SetReadDeadline(t time.Time) error { return r.f.SetReadDeadline(t) }

// WriteNow draws what of p the client's handed-over terminal takes at
// once, without waiting: short when the terminal is full or another
// write holds it, whatever is left for Write. ok is false when the
// client relays its terminal: only Write draws there. A failed write is
// left for Write to meet and report.
func (s *Conn) WriteNow(p []byte) (n int, ok bool) {
	if s.tty == nil {
		return 0, false
	}
	if len(p) == 0 || !s.wmu.TryLock() {
		return 0, true
	}
	defer s.wmu.Unlock()
	if s.finished || s.werr != nil {
		return 0, true
	}
	rc, err := s.tty.SyscallConn() // not Fd, which may make the file blocking
	if err != nil {
		return 0, true
	}
	_ = rc.Control(func(fd uintptr) { // Best effort: a closed terminal is Write's to report.
		for n < len(p) {
			m, err := nbio.Write(int(fd), p[n:])
			if err != nil {
				return // EAGAIN: full; any other error is Write's to meet
			}
			n += m
		}
	})
	return n, true
}

// writeTTY draws p on the client's terminal; called with wmu held. A
// terminal that takes nothing for writeTimeout is cut off, as a client
// that reads no frames is.
func (s *Conn) writeTTY(p []byte) (int, error) {
	if s.werr != nil {
		return 0, s.werr
	}
	_ = s.tty.SetWriteDeadline(time.Now().Add(s.writeTimeout)) // Best effort: without it a stalled terminal holds this writer.
	// Raw writes, waiting in the poller when the terminal is full
	// (package nbio says why).
	n, err := nbio.WriteWait(s.tty, p)
	if err != nil {
		s.werr = fmt.Errorf("write to %s's terminal: %w (it is cut off: it may attach again)", s.hello.Who, err)
		_ = s.conn.Close() // Best effort: the client is gone either way.
		_ = s.tty.Close()  // Best effort: ends a read of it.
		return n, s.werr
	}
	return n, nil
}
