package pagetrim

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Drop advises the kernel that this process no longer needs its
// read-only mappings of files (its executable's code and constants, its
// libraries'), and returns how many bytes of them were resident. Call
// it once a process is done starting (and again after a burst of one-off
// work, say a client's attachment); it reads /proc/self/smaps and takes
// about a millisecond. An error leaves
// the process as it was, every mapping advised before it aside.
func Drop() (int64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("pagetrim: %w", err)
	}
	spans, err := plan(f)
	_ = f.Close() // read-only: nothing to lose
	if err != nil {
		return 0, err
	}
	var dropped int64
	for _, s := range spans {
		// The addresses come from the kernel's own list of this
		// process's mappings, and only those it maps from the file
		// unchanged: advising them away loses nothing.
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, s.start, s.end-s.start, unix.MADV_DONTNEED); e != 0 {
			return dropped, fmt.Errorf("pagetrim: madvise %#x-%#x: %w", s.start, s.end, e)
		}
		dropped += s.rss
	}
	return dropped, nil
}
