package local

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The orphan reaper (contract C13). sandmux is a child subreaper, so every
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
// So each pass peeks at the first zombie and reaps it while it is an
// orphan, and once it is one to leave alone, lists every child
// (/proc/self/task/*/children). It decides per zombie (classify):
//
//   - A pane's leader is left to its cmd.Wait.
//   - Any other zombie in a pane's session or cgroup is the pane's: os/exec
//     starts nothing else there. It is reaped.
//   - Any other zombie (a pane's process that made a session of its own,
//     outside a cgroup; an orphan of something else) is reaped if nobody in
//     this process holds a pidfd for it. Since Go 1.23, os.StartProcess
//     holds a pidfd for every child it starts until Wait has reaped it, so
//     such a zombie was not started by os/exec, or its Wait is done (or it
//     was Released): it is an adopted orphan. The pidfds held are read from
//     /proc/self/fdinfo ("Pid:" lines), only when a pass has such a zombie.
//     Whether the runtime really holds pidfds is checked on the first pane
//     leader (notePidfd); where it does not (an old kernel, a seccomp
//     filter), these zombies are left alone.
//
// Every reap is pinned: the zombie's pidfd is opened first, and its start
// time checked again, so a pid reaped and reused meanwhile is never waited
// for by mistake. A zombie that turns up during a pass has sent a SIGCHLD
// of its own, for the next pass.
type reaper struct {
	mu      sync.Mutex
	users   int
	stop    chan struct{}
	done    chan struct{}
	leaders map[int]int     // pane leaders (a count: a pid may be reused): their cmd.Wait reaps them
	cgroups map[string]bool // pane cgroups, as /proc/PID/cgroup names them
	// pidfds is whether os/exec holds a pidfd for each child it starts:
	// 0 unknown, 1 yes, -1 no.
	pidfds int

	pass sync.Mutex // one pass at a time
}

var orphans = reaper{leaders: map[int]int{}, cgroups: map[string]bool{}}

// acquire registers a pane (its leader, which is also its session id, and
// its cgroup or "") and starts the reaper goroutine for the first one.
func (r *reaper) acquire(leader int, cgroup string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaders[leader]++
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
	if r.leaders[leader]--; r.leaders[leader] <= 0 {
		delete(r.leaders, leader)
	}
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
			r.reapOrphans() // a death signalled just before the last pane went
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

// reapOrphans reaps every zombie child that is an adopted orphan, in one
// pass. A death during the pass sends a SIGCHLD of its own, which the
// goroutine's one-slot channel keeps for the next pass.
func (r *reaper) reapOrphans() {
	r.pass.Lock()
	defer r.pass.Unlock()
	r.reapPass()
}

// pinned is a zombie to reap, held by a pidfd of our own. checkHeld: it is
// not positively a pane's, so it is reaped only if os/exec holds no pidfd
// for it.
type pinned struct {
	pid, fd   int
	checkHeld bool
}

// reapPass peeks at the first zombie child (waitid WNOWAIT, one system
// call) and reaps it while it is an orphan: the common case costs no scan.
// Once the first zombie is one sandmux must leave alone (waitid would keep
// returning it), or after a bounded number, it looks at every child.
func (r *reaper) reapPass() {
	for range 64 {
		pid, ok := peekZombie()
		if !ok {
			return // no zombie child at all
		}
		if !r.reapOne(pid) {
			break
		}
	}
	r.reapScan()
}

// peekZombie returns a zombie child's pid without reaping it.
func peekZombie() (int, bool) {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
		return 0, false // ECHILD: no children; no signal number: none has exited
	}
	// si_pid is the first field of the union that follows si_signo,
	// si_errno and si_code, aligned to a pointer.
	off := (12 + unsafe.Sizeof(uintptr(0)) - 1) &^ (unsafe.Sizeof(uintptr(0)) - 1)
	pid := *(*int32)(unsafe.Add(unsafe.Pointer(&info), off))
	return int(pid), pid > 0
}

// reapOne reaps pid if it is an orphan, and reports whether it was one.
func (r *reaper) reapOne(pid int) bool {
	c, ok := r.pin(pid)
	if !ok {
		return false
	}
	defer func() { _ = unix.Close(c.fd) }() // Best effort: a pidfd we opened.
	if c.checkHeld && heldPidfds(map[int]bool{c.fd: true})[pid] {
		return false // os/exec waits for it
	}
	var info unix.Siginfo
	_ = unix.Waitid(unix.P_PIDFD, c.fd, &info, unix.WEXITED|unix.WNOHANG, nil) // Best effort: reaped meanwhile, or not ours after all.
	return true
}

// reapScan reaps every orphan among the zombie children.
func (r *reaper) reapScan() {
	kids, err := childPids()
	if err != nil {
		return
	}
	var cands []pinned
	defer func() {
		for _, c := range cands {
			_ = unix.Close(c.fd) // Best effort: a pidfd we opened.
		}
	}()
	ours, check := map[int]bool{}, false
	for _, pid := range kids {
		if c, ok := r.pin(pid); ok {
			cands = append(cands, c)
			ours[c.fd], check = true, check || c.checkHeld
		}
	}
	var held map[int]bool
	if check {
		held = heldPidfds(ours) // only when needed: it reads every descriptor
	}
	for _, c := range cands {
		if c.checkHeld && held[c.pid] {
			continue // os/exec waits for it
		}
		var info unix.Siginfo
		_ = unix.Waitid(unix.P_PIDFD, c.fd, &info, unix.WEXITED|unix.WNOHANG, nil) // Best effort: reaped meanwhile, or not ours after all.
	}
}

// pin opens a pidfd for pid if it is a zombie sandmux may reap, and checks
// through the pidfd that it is still the process that was looked at.
func (r *reaper) pin(pid int) (pinned, bool) {
	st, err := readStat(pid)
	if err != nil || st.state != 'Z' {
		return pinned{}, false
	}
	reap, checkHeld := r.classify(pid, st)
	if !reap {
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
	return pinned{pid: pid, fd: fd, checkHeld: checkHeld}, true
}

// classify decides about a zombie child: whether it may be reaped, and
// whether only if os/exec holds no pidfd for it. A zombie in a pane's
// session or cgroup that is not the pane's leader is positively the pane's:
// os/exec starts only leaders there (any other child of ours is in
// sandmux's own session and cgroup, or made a session of its own, whose
// id, its pid, is no registered leader's while that leader is registered).
func (r *reaper) classify(pid int, st procStat) (reap, checkHeld bool) {
	r.mu.Lock()
	leader, inSession, anyCgroup, pidfds := r.leaders[pid] > 0, r.leaders[st.session] > 0, len(r.cgroups) > 0, r.pidfds
	r.mu.Unlock()
	switch {
	case leader:
		return false, false
	case inSession:
		return true, false
	}
	if anyCgroup {
		cg := procCgroup(pid) // read outside the lock
		r.mu.Lock()
		// The leader is asked again: a pane whose leader exited at once
		// may have registered, leader and cgroup together, while the
		// cgroup was read; its cgroup then holds its leader too.
		inCgroup := r.cgroups[cg] && r.leaders[pid] == 0
		r.mu.Unlock()
		if inCgroup {
			return true, false
		}
	}
	return pidfds == 1, true
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
