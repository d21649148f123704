package local

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The orphan reaper (contract C12). sandmux is a child subreaper, so every
// process a pane leaves behind is re-parented to sandmux, and when it dies
// it stays a zombie until sandmux waits for it. A pane running
// "while :; do (true &); done" would fill the pid table within minutes.
//
// The hard part is not stealing an exit status: the same process has
// children it waits for itself through os/exec (each pane's leader, and any
// other exec.Cmd in the process), and wait4(-1) would take theirs. Peeking
// with waitid(P_ALL, WNOWAIT) does not help either: it keeps returning the
// first zombie, which may be one sandmux must leave alone.
//
// So each pass lists the children (/proc/self/task/*/children) and decides
// per zombie:
//
//   - Since Go 1.23, os.StartProcess holds a pidfd for every child it starts
//     until Wait has reaped it. A child nobody in this process holds a pidfd
//     for was not started by os/exec, or its Wait is done (or it was
//     Released): it is an adopted orphan, and sandmux reaps it. The pidfds
//     held are read from /proc/self/fdinfo ("Pid:" lines).
//   - Whether the runtime really holds pidfds is checked on a pane leader
//     (see notePidfd). Until that is known, or if it does not (an old kernel,
//     a seccomp filter), only zombies positively of a pane are reaped: in a
//     pane's session, or in a pane's cgroup, never a pane's leader.
//
// Every reap is pinned: the zombie's pidfd is opened first, and its start
// time checked again through it, so a pid reaped and reused meanwhile is
// never waited for by mistake. A zombie that turns up between two SIGCHLDs
// is reaped by the next pass, or by the teardown's own checks.
type reaper struct {
	mu      sync.Mutex
	users   int
	stop    chan struct{}
	done    chan struct{}
	leaders map[int]bool    // pane leaders: their cmd.Wait reaps them
	cgroups map[string]bool // pane cgroups, as /proc/PID/cgroup names them
	// pidfds is whether os/exec holds a pidfd for each child it starts:
	// 0 unknown, 1 yes, -1 no.
	pidfds int

	pass sync.Mutex // one pass at a time
}

var orphans = reaper{leaders: map[int]bool{}, cgroups: map[string]bool{}}

// acquire registers a pane (its leader, which is also its session id, and
// its cgroup or "") and starts the reaper goroutine for the first one.
func (r *reaper) acquire(leader int, cgroup string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaders[leader] = true
	if cgroup != "" {
		r.cgroups[cgroup] = true
	}
	r.users++
	if r.users == 1 {
		r.stop, r.done = make(chan struct{}), make(chan struct{})
		go r.run(r.stop, r.done)
	}
}

// release forgets a pane, and stops the goroutine, waiting for it, when
// it was the last: nothing of sandmux outlives its sessions.
func (r *reaper) release(leader int, cgroup string) {
	r.mu.Lock()
	delete(r.leaders, leader)
	delete(r.cgroups, cgroup)
	r.users--
	var stop, done chan struct{}
	if r.users == 0 {
		stop, done = r.stop, r.done
	}
	r.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

func (r *reaper) run(stop, done chan struct{}) {
	defer close(done)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	for {
		r.reapOrphans()
		select {
		case <-stop:
			return
		case <-sigs:
		}
	}
}

// notePidfd records whether os/exec holds a pidfd for leader, a child it
// just started.
func (r *reaper) notePidfd(leader int) {
	r.mu.Lock()
	known := r.pidfds != 0
	r.mu.Unlock()
	if known {
		return
	}
	held := heldPidfds(nil)
	r.mu.Lock()
	if held[leader] {
		r.pidfds = 1
	} else {
		r.pidfds = -1
	}
	r.mu.Unlock()
}

// reapOrphans reaps every zombie child that is an adopted orphan. It loops
// while a pass reaps something, a bounded number of times: a burst of
// deaths may send one SIGCHLD, and a fork loop must not hold it forever.
func (r *reaper) reapOrphans() {
	r.pass.Lock()
	defer r.pass.Unlock()
	for range 16 {
		if r.reapPass() == 0 {
			return
		}
	}
}

type pinned struct {
	pid, fd int
}

func (r *reaper) reapPass() int {
	kids, err := childPids()
	if err != nil {
		return 0
	}
	var cands []pinned
	defer func() {
		for _, c := range cands {
			_ = unix.Close(c.fd) // Best effort: a pidfd we opened.
		}
	}()
	for _, pid := range kids {
		if c, ok := r.pin(pid); ok {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return 0
	}
	ours := map[int]bool{}
	for _, c := range cands {
		ours[c.fd] = true
	}
	held := heldPidfds(ours)
	reaped := 0
	for _, c := range cands {
		if held[c.pid] {
			continue // os/exec waits for it
		}
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PIDFD, c.fd, &info, unix.WEXITED|unix.WNOHANG, nil); err == nil {
			reaped++
		}
	}
	return reaped
}

// pin opens a pidfd for pid if it is a zombie sandmux may reap, and checks
// through the pidfd that it is still the process that was looked at.
func (r *reaper) pin(pid int) (pinned, bool) {
	st, err := readStat(pid)
	if err != nil || st.state != 'Z' || !r.mayReap(pid, st) {
		return pinned{}, false
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return pinned{}, false // ENOSYS: no pidfds, so no safe reap either
	}
	again, err := readStat(pid)
	if err != nil || again.start != st.start || again.state != 'Z' {
		_ = unix.Close(fd) // Best effort.
		return pinned{}, false
	}
	return pinned{pid: pid, fd: fd}, true
}

func (r *reaper) mayReap(pid int, st procStat) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.leaders[pid]:
		return false
	case r.pidfds == 1:
		return true
	case r.leaders[st.session]:
		return true // in a pane's session, not its leader
	}
	return len(r.cgroups) > 0 && r.cgroups[procCgroup(pid)]
}

// heldPidfds returns the pids this process holds a pidfd for, except
// through the descriptors in skip.
func heldPidfds(skip map[int]bool) map[int]bool {
	held := map[int]bool{}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return held
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || skip[fd] {
			continue
		}
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || link != "anon_inode:[pidfd]" {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && pid > 0 {
					held[pid] = true
				}
			}
		}
	}
	return held
}
