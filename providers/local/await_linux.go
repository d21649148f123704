package local

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit waits until the child pid has exited, in Go's poller: its
// pidfd turns readable then. cmd.Wait, which follows, then reaps it at
// once; alone it would block a thread in waitid for as long as the child
// runs, one thread a pane, 48 for 48 panes. The child is not reaped before
// cmd.Wait (the reaper leaves pane leaders to it), so pid stays this
// child's. Where no pidfd can be opened or polled (an old kernel, a
// seccomp filter), it returns at once and cmd.Wait blocks as it did.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	// A non-blocking descriptor: os.NewFile puts it in the poller.
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// Not pollable after all: Read returns at once with an error, and
	// cmd.Wait blocks.
	_ = rc.Read(func(fd uintptr) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(p, 0)
		return n > 0 || (err != nil && err != unix.EINTR)
	})
}
