package local

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A pane's cgroup (cgroup v2) holds every process the pane starts, whatever
// session or process group they move to: setsid, double forks and daemons
// stay inside. The child is cloned straight into it (CLONE_INTO_CGROUP), so
// nothing runs outside even for an instant; teardown kills with cgroup.kill
// and verifies with cgroup.events ("populated 0").
//
// sandmux makes the pane cgroups children of its own cgroup, which it may
// when that directory is writable (as root, or in a delegated systemd
// scope). No controller is enabled in between, so the "no internal
// processes" rule does not stop sandmux from staying in its own cgroup
// beside them. Where a cgroup cannot be made, a pane falls back to its
// session plus the processes carrying its marker (see contain_linux.go).
//
// SANDMUX_NO_CGROUP=1 in sandmux's environment turns the cgroup path off.
const noCgroupEnv = "SANDMUX_NO_CGROUP"

// cgroupParent returns the directory of sandmux's own cgroup v2 and its path
// as /proc/PID/cgroup names it, found once.
var cgroupParent = sync.OnceValues(func() (dir string, err error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("read own cgroup: %w", err)
	}
	var rel string
	found := false
	for line := range strings.Lines(string(own)) {
		if r, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = strings.TrimSpace(r), true
		}
	}
	if !found {
		return "", errors.New("not in a cgroup v2 hierarchy")
	}
	mount, root, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	sub, err := filepath.Rel(root, rel)
	if err != nil || strings.HasPrefix(sub, "..") {
		return "", fmt.Errorf("own cgroup %q is outside the mounted cgroup2 root %q", rel, root)
	}
	return filepath.Join(mount, sub), nil
})

// cgroup2Mount finds a cgroup2 mount in /proc/self/mountinfo: where it is
// mounted and which cgroup is its root.
func cgroup2Mount() (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source super
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, fs := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(fs) >= 1 && fs[0] == "cgroup2" {
			return unescapeMount(fields[4]), unescapeMount(fields[3]), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", fmt.Errorf("read mounts: %w", err)
	}
	return "", "", errors.New("no cgroup2 file system is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var (
	cgroupSeq atomic.Uint64
	sweepOnce sync.Once
)

// sweepStale removes the empty pane cgroups left by sandmux processes that
// are gone (killed before they could remove them). A populated one holds
// a dead sandmux's panes still running: that is for the user to decide, so
// it is left.
func sweepStale(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		var pid, seq int
		if _, err := fmt.Sscanf(e.Name(), "sandmux-%d-%d", &pid, &seq); err != nil || !e.IsDir() || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // its sandmux (or a process with its pid) still runs
		}
		c := &cgroup{dir: filepath.Join(parent, e.Name())}
		if full, err := c.populated(); err == nil && !full {
			_ = removeTree(c.dir) // Best effort: another sandmux may sweep it at the same time.
		}
	}
}

// cgroup is one pane's cgroup.
type cgroup struct {
	dir  string // absolute path
	name string // as /proc/PID/cgroup shows it
	fd   int    // the directory, for CLONE_INTO_CGROUP

	mu      sync.Mutex
	removed bool
	cpu     time.Duration // the last usage read, kept once removed
	// stat is cpu.stat, open from the first read until the cgroup is
	// removed (statOpen): a round of usage samples reads it in one
	// pread, where opening it anew took four calls and a path walk a
	// pane, three times as long (BenchmarkCPUStat).
	stat     int
	statOpen bool
}

// newCgroup makes a cgroup for one pane.
func newCgroup() (*cgroup, error) {
	if os.Getenv(noCgroupEnv) == "1" {
		return nil, fmt.Errorf("cgroups turned off by %s=1", noCgroupEnv)
	}
	parent, err := cgroupParent()
	if err != nil {
		return nil, err
	}
	sweepOnce.Do(func() { sweepStale(parent) })
	base := fmt.Sprintf("sandmux-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	dir := filepath.Join(parent, base)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make a cgroup for the pane: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir) // Best effort: it is empty.
		return nil, fmt.Errorf("open the pane's cgroup: %w", err)
	}
	c := &cgroup{dir: dir, fd: fd, name: procCgroupName(dir)}
	return c, nil
}

// procCgroupName is how /proc/PID/cgroup names the cgroup at dir.
func procCgroupName(dir string) string {
	own := procCgroup(os.Getpid())
	parent, _ := cgroupParent()
	return filepath.Join(own, strings.TrimPrefix(dir, parent))
}

func (c *cgroup) file(name string) string { return filepath.Join(c.dir, name) }

// procs lists the live processes in the cgroup.
func (c *cgroup) procs() ([]int, error) {
	b, err := os.ReadFile(c.file("cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("list the pane's cgroup: %w", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// kill sends SIGKILL to everything in the cgroup: with cgroup.kill where
// the kernel has it (5.14), which also catches processes forking
// meanwhile; else to each process listed.
func (c *cgroup) kill() error {
	if f, err := os.OpenFile(c.file("cgroup.kill"), os.O_WRONLY, 0); err == nil {
		_, werr := f.Write([]byte("1"))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("kill the pane's cgroup: %w", werr)
		}
		return nil
	}
	pids, err := c.procs()
	if err != nil {
		return err
	}
	var errs []error
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("kill pid %d: %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

// populated reports whether any live process is in the cgroup. Zombies do
// not count: they are reaped separately.
func (c *cgroup) populated() (bool, error) {
	b, err := os.ReadFile(c.file("cgroup.events"))
	if err != nil {
		return true, fmt.Errorf("read the pane's cgroup events: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "populated "); ok {
			return strings.TrimSpace(v) != "0", nil
		}
	}
	return true, errors.New("the pane's cgroup.events has no populated line")
}

// cpuUsage is the CPU time used by the pane's processes so far (cpu.stat's
// usage_usec, which cgroup v2 keeps without any controller enabled).
func (c *cgroup) cpuUsage() (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.removed {
		return c.cpu, nil
	}
	var buf [1024]byte
	b, err := c.readStat(buf[:])
	if err != nil {
		return c.cpu, fmt.Errorf("read the pane's cpu.stat: %w", err)
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("usage_usec ")); ok {
			us, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return c.cpu, fmt.Errorf("read the pane's cpu.stat: %w", err)
			}
			c.cpu = time.Duration(us) * time.Microsecond
			return c.cpu, nil
		}
	}
	return c.cpu, errors.New("the pane's cpu.stat has no usage_usec")
}

// readStat reads cpu.stat into buf through the descriptor kept open,
// opening it first; a file larger than buf is read whole anew. c.mu is
// held.
func (c *cgroup) readStat(buf []byte) ([]byte, error) {
	if !c.statOpen {
		fd, err := unix.Openat(c.fd, "cpu.stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: c.file("cpu.stat"), Err: err}
		}
		c.stat, c.statOpen = fd, true
	}
	// From offset 0, a cgroup file is shown afresh, whole when it fits.
	n, err := unix.Pread(c.stat, buf, 0)
	for err == unix.EINTR {
		n, err = unix.Pread(c.stat, buf, 0)
	}
	switch {
	case err != nil:
		return nil, &os.PathError{Op: "read", Path: c.file("cpu.stat"), Err: err}
	case n < len(buf):
		return buf[:n], nil
	}
	b, err := os.ReadFile(c.file("cpu.stat"))
	if err != nil {
		return nil, fmt.Errorf("read %s again whole: %w", c.file("cpu.stat"), err)
	}
	return b, nil
}

// closeStat closes cpu.stat's descriptor, if open, before the cgroup
// goes. c.mu is held.
func (c *cgroup) closeStat() {
	if c.statOpen {
		_ = unix.Close(c.stat) // Best effort: read-only.
		c.statOpen = false
	}
}

// remove removes the cgroup once it holds no live process. It is
// idempotent; a cgroup still populated is left and reported.
func (c *cgroup) remove() error {
	_, _ = c.cpuUsage() // Best effort: keep the last figure for after removal.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.removed {
		return nil
	}
	c.closeStat() // reopened by the next read should the removal fail
	if err := removeTree(c.dir); err != nil {
		return fmt.Errorf("remove the pane's cgroup %s: %w", c.dir, err)
	}
	c.removed = true
	_ = unix.Close(c.fd) // Best effort: a directory opened O_PATH.
	return nil
}

func (c *cgroup) isRemoved() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.removed
}

// removeTree removes the cgroup at dir and the cgroups a pane's process
// made inside it (as root, say a nested container), deepest first. A
// cgroup holds no regular files to remove: rmdir takes its interface files.
func removeTree(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var errs []error
	for _, e := range ents {
		if e.IsDir() {
			errs = append(errs, removeTree(filepath.Join(dir, e.Name())))
		}
	}
	if err := unix.Rmdir(dir); err != nil && !errors.Is(err, unix.ENOENT) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
