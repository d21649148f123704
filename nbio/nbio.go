// Package nbio reads and writes non-blocking descriptors without telling
// Go's scheduler that a system call is under way.
//
// Such a call returns at once (EAGAIN when it would wait), so handing its
// processor to another thread gains nothing, and announcing the call
// costs more than making it: a system call entered while the runtime's
// monitor thread sleeps deeply (every processor was idle) wakes that
// thread, which then polls every 20 µs, doubling only after a
// millisecond. A server paced by ticks goes idle between them, so every
// tick's first read or write paid some thirty wake-ups of the monitor:
// at 16 busy panes on a 2-core machine, 40 % of the server's context
// switches were its sleeps.
//
// Waits still go through Go's poller (ReadWait, WriteWait): a file's
// deadlines and Close work as with its own Read and Write. Only the
// reads and writes themselves are raw.
//
// It owns no descriptor: callers keep theirs, and must give it only
// descriptors opened O_NONBLOCK (a raw call that waited would hold its
// processor while it did).
package nbio

import (
	"errors"
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read is read(2) on a non-blocking descriptor: unix.EAGAIN when there
// is nothing yet, 0 and no error at the end of input.
func Read(fd int, p []byte) (int, error) {
	return rw(unix.SYS_READ, fd, p)
}

// Write is write(2) on a non-blocking descriptor: unix.EAGAIN when it
// takes nothing now.
func Write(fd int, p []byte) (int, error) {
	return rw(unix.SYS_WRITE, fd, p)
}

func rw(trap uintptr, fd int, p []byte) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	for {
		n, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(ptr), uintptr(len(p)))
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		}
		return 0, errno
	}
}

// ReadWait reads f, a non-blocking file the runtime polls, as f.Read
// does: it waits for input in the poller (f's read deadline holds:
// os.ErrDeadlineExceeded), returns io.EOF at the end of input and
// os.ErrClosed once f is closed, and any other error as the call's
// unix.Errno.
func ReadWait(f *os.File, p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, rerr = Read(int(fd), p)
		return rerr != unix.EAGAIN
	}); err != nil {
		return 0, pollErr(err)
	}
	switch {
	case rerr != nil:
		return 0, rerr
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// WriteWait writes p whole to f, a non-blocking file the runtime polls,
// as f.Write does: it waits for room in the poller (f's write deadline
// holds) and returns what was written with the first error.
func WriteWait(f *os.File, p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	done := 0
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			n, err := Write(int(fd), p[done:])
			if err == unix.EAGAIN {
				return false
			}
			if err != nil {
				werr = err
				return true
			}
			done += n
		}
		return true
	}); err != nil {
		return done, pollErr(err)
	}
	return done, werr
}

// pollErr is the poller's error as os says it: a deadline, or a closed
// file (the only other end of a wait on a file).
func pollErr(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return os.ErrDeadlineExceeded
	}
	return os.ErrClosed
}
