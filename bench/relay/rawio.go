package main

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/nbio"
)

// rawFile reads and writes a non-blocking file as sandmux's terminals
// and PTYs are (package nbio): the waits in Go's poller, the calls
// themselves past the runtime's syscall entry.
type rawFile struct{ f *os.File }

func (r rawFile) Read(p []byte) (int, error)  { return nbio.ReadWait(r.f, p) }
func (r rawFile) Write(p []byte) (int, error) { return nbio.WriteWait(r.f, p) }

// nonblock makes f non-blocking through its RawConn (f.Fd would make it
// blocking again): a raw read must never wait.
func nonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetNonblock(int(fd), true) }); err != nil {
		return err
	}
	return serr
}
