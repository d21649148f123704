package parsegate

import "golang.org/x/sys/unix"

// lowerPriority raises this thread's nice value by backgroundNice, to
// 19 at most. A failure (a sandbox that forbids it) leaves the priority
// as it was: the parse is as right, only not put behind a key.
func lowerPriority() {
	tid := unix.Gettid()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	// The system call's value, not the nice: 40 for nice -20, 1 for 19.
	nice := 20 - prio
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, min(19, nice+backgroundNice)) // Best effort, as above.
}
