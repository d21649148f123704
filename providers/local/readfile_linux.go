package local

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// readSmall reads a small kernel file (cpu.stat, memory.current, a
// /proc stat line) into buf: an open, a read or two and a close. The
// usage sampler reads one such file per pane a round, where os.ReadFile
// also stats the file and tries it on the poller, three times the
// syscalls. A file that fills buf is read again whole with os.ReadFile.
func readSmall(path string, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd) //nolint:errcheck // Read-only: nothing is lost.
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			return buf[:n], nil
		}
		n += m
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s again whole: %w", path, err)
	}
	return b, nil
}
