package main

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"unsafe"

	"github.com/charmbracelet/x/term"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// pollRelay relays the terminal and cat's PTY on one locked thread, both
// files blocking, waiting for either with ppoll: made with RawSyscall
// when raw, else through the runtime's syscall entry (unix.Poll).
func pollRelay(raw bool) error {
	runtime.LockOSThread()
	tfd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the terminal (run it on one): %w", err)
	}
	defer unix.Close(tfd)
	state, err := term.MakeRaw(uintptr(tfd))
	if err != nil {
		return fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	defer func() { _ = term.Restore(uintptr(tfd), state) }() // Best effort on the way out.
	cat := exec.Command("cat")
	ptmx, err := pty.Start(cat)
	if err != nil {
		return fmt.Errorf("start cat on a PTY: %w", err)
	}
	// A descriptor of its own, blocking and out of Go's poller.
	pfd, err := unix.Dup(int(ptmx.Fd()))
	_ = ptmx.Close() // Best effort: the copy is what is read.
	if err != nil {
		return fmt.Errorf("copy the PTY's descriptor: %w", err)
	}
	defer unix.Close(pfd)
	fds := []unix.PollFd{{Fd: int32(tfd), Events: unix.POLLIN}, {Fd: int32(pfd), Events: unix.POLLIN}}
	buf := make([]byte, 4096)
	for {
		if err := wait(fds, raw); err != nil {
			return err
		}
		for i, dst := range []int{pfd, tfd} {
			if fds[i].Revents == 0 {
				continue
			}
			n, err := unix.Read(int(fds[i].Fd), buf)
			if n <= 0 || err != nil {
				_ = cat.Wait() // its status is not the measure
				return nil     // either side ending ends the relay
			}
			if _, err := unix.Write(dst, buf[:n]); err != nil {
				return fmt.Errorf("relay: %w", err)
			}
		}
	}
}

// wait blocks until a file in fds is ready; a signal's interruption is
// no error.
func wait(fds []unix.PollFd, raw bool) error {
	for i := range fds {
		fds[i].Revents = 0 // left as they were by an interrupted wait
	}
	var err error
	if raw {
		_, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0, 0, 0)
		if e != 0 {
			err = e
		}
	} else {
		_, err = unix.Poll(fds, -1)
	}
	if err != nil && !errors.Is(err, unix.EINTR) {
		return fmt.Errorf("wait for the terminal or the PTY: %w", err)
	}
	return nil
}
