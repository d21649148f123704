package vt_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// startPTY starts cmd on a PTY of cols x rows and returns the master in
// non-blocking mode, registered with Go's poller, as providers/local opens
// it: closing it then interrupts a reply write blocked on a child that
// does not read (pty.Start leaves the master blocking, and closing a
// blocking fd waits for the write instead).
func startPTY(t *testing.T, cmd *exec.Cmd, cols, rows int) *os.File {
	t.Helper()
	m, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatalf("start in pty: %v", err)
	}
	nfd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = m.Close() // best effort: the duplicate keeps the master open
	if err != nil {
		t.Fatalf("duplicate pty master: %v", err)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		t.Fatalf("set pty master non-blocking: %v", err)
	}
	return os.NewFile(uintptr(nfd), "/dev/ptmx")
}
