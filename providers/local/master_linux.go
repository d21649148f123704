package local

// The master end of a pane's PTY, kept out of the runtime's poller while
// nobody waits on it. Go's poller watches every descriptor it was given,
// edge-triggered, for as long as it is open: each write of the child
// woke the thread blocked in epoll_wait, whether or not a reader waited.
// A pane whose reads are paced (package session reads it on its pacer's
// tick, ReadNow) has no reader waiting, and 48 panes replaying a program
// at 20 KB/s in 10 ms pieces made 4,800 such wake-ups a second, each a
// trip through the scheduler: about a fifth of sandmux's CPU. So the
// master's own descriptor is never registered; a Read that must wait
// does so on a duplicate registered for it (the same open file), which
// stays while reads go on and goes at the first ReadNow, and a Write
// that finds the PTY full waits on a duplicate of its own. Reads and
// writes themselves are raw system calls, unannounced to the scheduler
// (package nbio says why).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/nbio"
)

// ptyMaster is a PTY's master end: a non-blocking descriptor, used by
// raw system calls, and the registered duplicates that waits use.
type ptyMaster struct {
	closed atomic.Bool
	// mu is read-held around every system call on fd and taken whole by
	// Close, so fd is never used once closed, nor its number reused
	// under a call. No wait happens under it.
	mu sync.RWMutex
	fd int

	wmu     sync.Mutex
	watch   *os.File // the duplicate Read waits on; nil: none registered
	reading int      // Reads in progress on watch
	writes  map[*os.File]struct{}
}

func newPTYMaster(fd int) *ptyMaster {
	return &ptyMaster{fd: fd, writes: map[*os.File]struct{}{}}
}

// raw runs op on the descriptor unless it is closed (io.EOF then).
func (m *ptyMaster) raw(op func(fd int) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed.Load() {
		return io.EOF
	}
	return op(m.fd)
}

// dup is a registered duplicate of the descriptor, to wait on.
func (m *ptyMaster) dup() (*os.File, error) {
	var nfd int
	if err := m.raw(func(fd int) (err error) {
		nfd, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		return err
	}); err != nil {
		return nil, err
	}
	// Non-blocking already (the flag is the open file's): the runtime
	// registers it with its poller.
	return os.NewFile(uintptr(nfd), "/dev/ptmx"), nil
}

// Read reads output, waiting for it on the registered duplicate. An EIO
// (every slave descriptor closed) or Close is io.EOF.
func (m *ptyMaster) Read(p []byte) (int, error) {
	w, err := m.startRead()
	if err != nil {
		return 0, err
	}
	n, err := nbio.ReadWait(w, p)
	m.wmu.Lock()
	m.reading--
	m.wmu.Unlock()
	if err != nil && (errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrClosed)) {
		err = io.EOF
	}
	return n, err
}

// startRead is the registered duplicate a Read waits on, made when there
// is none.
func (m *ptyMaster) startRead() (*os.File, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.closed.Load() {
		return nil, io.EOF
	}
	if m.watch == nil {
		w, err := m.dup()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, fmt.Errorf("watch pty master: %w", err)
		}
		m.watch = w
	}
	m.reading++
	return m.watch, nil
}

// ReadNow reads what output there is without waiting: 0 and no error
// when there is none yet. It drops the registered duplicate, unless a
// Read waits on it: a pane read this way is read on a tick, and nothing
// needs waking when its child writes.
func (m *ptyMaster) ReadNow(p []byte) (int, error) {
	m.wmu.Lock()
	if m.watch != nil && m.reading == 0 {
		_ = m.watch.Close() // Best effort: a duplicate; the master stays open.
		m.watch = nil
	}
	m.wmu.Unlock()
	var n int
	err := m.raw(func(fd int) (err error) {
		n, err = nbio.Read(fd, p)
		return err
	})
	switch {
	case errors.Is(err, unix.EAGAIN):
		return 0, nil
	case errors.Is(err, syscall.EIO), errors.Is(err, io.EOF):
		return 0, io.EOF
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes p whole: at once while the PTY takes it, else waiting for
// room on a registered duplicate of its own.
func (m *ptyMaster) Write(p []byte) (int, error) {
	n, err := m.WriteNow(p)
	if err != nil || n == len(p) {
		return n, err
	}
	k, err := m.writeWaiting(p[n:])
	return n + k, err
}

// WriteNow writes what the PTY takes at once and never waits: a full
// PTY takes 0 bytes, and that is no error.
func (m *ptyMaster) WriteNow(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		var n int
		err := m.raw(func(fd int) (err error) {
			n, err = nbio.Write(fd, p[written:])
			return err
		})
		if n > 0 {
			written += n
		}
		switch {
		case errors.Is(err, unix.EAGAIN):
			return written, nil
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return written, err
		}
	}
	return written, nil
}

// writeWaiting writes p through a registered duplicate, which waits for
// room; Close ends the wait.
func (m *ptyMaster) writeWaiting(p []byte) (int, error) {
	m.wmu.Lock()
	if m.closed.Load() {
		m.wmu.Unlock()
		return 0, io.EOF
	}
	w, err := m.dup()
	if err != nil {
		m.wmu.Unlock()
		return 0, err
	}
	m.writes[w] = struct{}{}
	m.wmu.Unlock()
	n, err := nbio.WriteWait(w, p)
	m.wmu.Lock()
	if _, ok := m.writes[w]; ok {
		delete(m.writes, w)
		_ = w.Close() // Best effort: a duplicate.
	}
	m.wmu.Unlock()
	return n, err
}

// Close closes the master: a Read or Write waiting returns at once
// (io.EOF, or the write's error).
func (m *ptyMaster) Close() error {
	if m.closed.Swap(true) {
		return os.ErrClosed
	}
	m.wmu.Lock()
	if m.watch != nil {
		_ = m.watch.Close() // Best effort: wakes a Read; a duplicate.
		m.watch = nil
	}
	for w := range m.writes {
		_ = w.Close() // Best effort: wakes a Write; a duplicate.
		delete(m.writes, w)
	}
	m.wmu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	return unix.Close(m.fd)
}
