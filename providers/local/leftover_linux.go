package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// CgroupParent is the cgroup this process makes its panes' cgroups in, to
// be recorded for whoever reaps after a server that died (package reap);
// "" where it makes none.
func CgroupParent() string {
	if os.Getenv(noCgroupEnv) == "1" {
		return ""
	}
	parent, err := cgroupParent()
	if err != nil {
		return ""
	}
	return parent
}

// reapWait bounds how long ReapCgroups waits for one killed cgroup to
// empty: the kernel kills asynchronously.
const reapWait = 10 * time.Second

// ReapCgroups kills and removes the pane cgroups that the sandmux process
// pid made under parent and left behind when it died (contract A5):
// everything in them, setsid children and daemons included, gets SIGKILL.
// Their names carry pid (sandmux-PID-N), and they are touched only once no
// process but a zombie has pid, so a live sandmux's panes never are; parent must be in
// the cgroup2 hierarchy. It returns how many cgroups it removed and how
// many processes they held.
func ReapCgroups(parent string, pid int) (cgroups, procs int, err error) {
	if pid <= 0 || pid == os.Getpid() {
		return 0, 0, fmt.Errorf("reap the pane cgroups of pid %d: not a dead sandmux", pid)
	}
	if running(pid) {
		return 0, 0, fmt.Errorf("pid %d runs again (another process took it): its pane cgroups in %s are left; kill them with: echo 1 > %s/sandmux-%d-N/cgroup.kill", pid, parent, parent, pid)
	}
	mount, _, err := cgroup2Mount()
	if err != nil {
		return 0, 0, err
	}
	if rel, err := filepath.Rel(mount, parent); err != nil || strings.HasPrefix(rel, "..") {
		return 0, 0, fmt.Errorf("reap the pane cgroups of pid %d: %s is not in the cgroup2 hierarchy at %s", pid, parent, mount)
	}
	ents, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("reap the pane cgroups of pid %d: %w", pid, err)
	}
	var errs []error
	for _, e := range ents {
		var owner, seq int
		if !e.IsDir() || !ownedBy(e.Name(), pid, &owner, &seq) {
			continue
		}
		if running(pid) { // looked at again before each kill: a new process may have taken pid
			errs = append(errs, fmt.Errorf("pid %d runs again (another process took it): its pane cgroups in %s are left", pid, parent))
			break
		}
		n, err := reapCgroup(filepath.Join(parent, e.Name()))
		procs += n
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cgroups++
	}
	return cgroups, procs, errors.Join(errs...)
}

// running reports whether a process other than a zombie has pid: a
// sandmux that was killed is a zombie until its parent reaps it, and a
// zombie runs nothing.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, err := readStat(pid)
	if errors.Is(err, os.ErrNotExist) {
		return false // gone meanwhile
	}
	return err != nil || st.state != 'Z' // unreadable: assume it runs
}

// ownedBy reports whether name is exactly a pane cgroup of pid's.
func ownedBy(name string, pid int, owner, seq *int) bool {
	_, err := fmt.Sscanf(name, "sandmux-%d-%d", owner, seq)
	return err == nil && *owner == pid && name == fmt.Sprintf("sandmux-%d-%d", *owner, *seq)
}

// reapCgroup kills everything in the cgroup at dir (and the cgroups made
// inside it), waits a bound for it to empty and removes it, returning how
// many processes it held.
func reapCgroup(dir string) (int, error) {
	c := &cgroup{dir: dir, fd: -1}
	n := countProcs(dir)
	if err := c.kill(); err != nil && !errors.Is(err, os.ErrNotExist) {
		return n, err
	}
	for delay, waited := time.Millisecond, time.Duration(0); ; delay = min(2*delay, 50*time.Millisecond) {
		full, err := c.populated()
		if errors.Is(err, os.ErrNotExist) {
			return n, nil
		}
		if !full || err != nil {
			break
		}
		if waited >= reapWait {
			return n, fmt.Errorf("the cgroup %s still holds processes %v after SIGKILL", dir, waited)
		}
		time.Sleep(delay) // the kernel announces no emptying that could be waited on here
		waited += delay
	}
	orphans.reapOrphans()
	if err := removeTree(dir); err != nil {
		return n, fmt.Errorf("remove the cgroup %s: %w", dir, err)
	}
	return n, nil
}

// countProcs counts the processes in the cgroup at dir and below it.
func countProcs(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error { // Best effort: a count for the log line.
		if err == nil && d.IsDir() {
			pids, _ := (&cgroup{dir: path}).procs()
			n += len(pids)
		}
		return nil
	})
	return n
}
