package snapshot

import (
	"time"

	"golang.org/x/sys/unix"
)

func lchtimes(p string, mt time.Time) error {
	ts := unix.NsecToTimespec(mt.UnixNano())
	return unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}
