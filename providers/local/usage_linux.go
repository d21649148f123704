package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// Usage: what a pane's processes use, for the session list and ctl ls.
//
//   - With a cgroup, CPU is its cpu.stat (every process that ever ran in
//     it, exited ones included), memory its memory.current when the memory
//     controller is on for it, else the resident sets of its processes.
//   - Without one, both are summed over the leader's process tree
//     (/proc/PID/task/*/children), from each process's stat line: its own
//     CPU and that of the children it waited for, and its resident set.
//     A process that left the tree (adopted by sandmux once its parent
//     exited) is not counted; the sum may drop when a child exits without
//     being waited for, so the figure kept never goes down.
//
// Resident sets add up pages shared between processes more than once; the
// figure is an upper bound, as top's sum would be.

// maxUsageProcs bounds the processes one sample reads, so that a fork
// bomb costs a bounded read.
const maxUsageProcs = 1024

// userHZ is the unit of a stat line's CPU times: the kernel exports
// them in USER_HZ, which is 100 on every architecture Linux runs Go on.
const userHZ = 100

// usageState is the last CPU figure a pane reported, so that it never
// goes down and is kept once the pane is gone.
type usageState struct {
	mu  sync.Mutex
	cpu time.Duration
	// The resident set is read again only after rssEvery, and only once
	// the CPU figure moved since: summing it reads every process's stat,
	// where CPU is one file; memory moves slower than a sampler looks,
	// and not at all while nothing runs (a page touched is CPU time
	// charged), so an idle pane's sample is its cpu.stat alone. rssCPU is
	// the CPU figure at the read. noMemory: the cgroup has no
	// memory.current (the controller is off), which does not change.
	rss      int64
	rssAt    time.Time
	rssCPU   time.Duration
	noMemory bool
}

// rssEvery is how long a resident set read is kept.
const rssEvery = 10 * time.Second

// cachedRSS returns the last resident set while it is fresh: younger
// than rssEvery, or read at the CPU figure cpu is still at.
func (u *usageState) cachedRSS(now time.Time, cpu time.Duration) (int64, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	// Nothing resident is not kept: a pane just started (its processes
	// still coming into the cgroup) shows its memory at the next read.
	return u.rss, u.rss > 0 && (now.Sub(u.rssAt) < rssEvery || cpu == u.rssCPU)
}

// keepRSS records rss, read at now when the CPU figure was cpu.
func (u *usageState) keepRSS(rss int64, now time.Time, cpu time.Duration) int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.rss, u.rssAt, u.rssCPU = rss, now, cpu
	return rss
}

func (u *usageState) keep(cpu time.Duration) time.Duration {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.cpu = max(u.cpu, cpu)
	return u.cpu
}

// Usage reports the CPU time the pane's processes used so far and their
// resident memory now. ok is false when neither can be read. It reads a
// few small files under /proc or the cgroup: call it off any event loop.
func (h *handle) Usage() (providers.Usage, bool) {
	if h.cg != nil {
		return h.cgroupUsage()
	}
	return h.treeUsage()
}

func (h *handle) cgroupUsage() (providers.Usage, bool) {
	cpu, err := h.cg.cpuUsage()
	if err != nil && !h.cg.isRemoved() {
		return providers.Usage{}, false
	}
	u := providers.Usage{CPU: h.usage.keep(cpu)}
	if h.cg.isRemoved() {
		return u, true // verified empty: nothing is resident
	}
	now := time.Now()
	if rss, fresh := h.usage.cachedRSS(now, u.CPU); fresh {
		u.RSS = rss
		return u, true
	}
	h.usage.mu.Lock()
	noMemory := h.usage.noMemory
	h.usage.mu.Unlock()
	if !noMemory {
		rss, err := h.cg.memoryCurrent()
		switch {
		case err == nil && rss > 0:
			u.RSS = h.usage.keepRSS(rss, now, u.CPU)
			return u, true
		case err != nil:
			h.usage.mu.Lock()
			h.usage.noMemory = true
			h.usage.mu.Unlock()
		}
		// Nothing charged yet: a process moved into the cgroup keeps its
		// pages charged where they were made, so a pane just started
		// reads 0 until it touches new memory. Its resident sets say
		// what it holds meanwhile.
	}
	pids, err := h.cg.procs()
	if err != nil {
		return u, true
	}
	_, rss := sumUsage(pids[:min(len(pids), maxUsageProcs)])
	u.RSS = h.usage.keepRSS(rss, now, u.CPU)
	return u, true
}

func (h *handle) treeUsage() (providers.Usage, bool) {
	select {
	case <-h.waitDone:
		// The leader is reaped: its tree is gone and its pid may be
		// reused by an unrelated process.
		return providers.Usage{CPU: h.usage.keep(0)}, true
	default:
	}
	pids, err := treePids(h.pgid, maxUsageProcs)
	if err != nil {
		return providers.Usage{}, false
	}
	cpu, rss := sumUsage(pids)
	return providers.Usage{CPU: h.usage.keep(cpu), RSS: rss}, true
}

// memoryCurrent is the cgroup's memory.current, present only when the
// memory controller is enabled for it.
func (c *cgroup) memoryCurrent() (int64, error) {
	var buf [64]byte
	b, err := readSmall(c.file("memory.current"), buf[:])
	if err != nil {
		return 0, fmt.Errorf("read the pane's memory.current: %w", err)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read the pane's memory.current: %w", err)
	}
	return n, nil
}

// sumUsage adds up the CPU time and resident memory of pids; a process
// gone meanwhile counts as nothing.
func sumUsage(pids []int) (cpu time.Duration, rss int64) {
	page := int64(os.Getpagesize())
	var buf [1024]byte
	for _, pid := range pids {
		b, err := readSmall("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
		if err != nil {
			continue
		}
		ticks, pages, err := parseUsage(b)
		if err != nil {
			continue
		}
		cpu += time.Duration(ticks) * (time.Second / userHZ)
		rss += pages * page
	}
	return cpu, rss
}

// parseUsage reads a stat line's CPU times (utime, stime, and cutime and
// cstime: the children it waited for) in clock ticks, and its resident
// set in pages. As in parseStat, fields count from the last ')'.
func parseUsage(b []byte) (ticks uint64, rssPages int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed /proc stat line")
	}
	var f [22][]byte
	if fields(b[i+1:], f[:]) < len(f) {
		return 0, 0, errors.New("malformed /proc stat line")
	}
	// Fields 14–17 and 24 of proc(5); f[0] is field 3.
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("malformed /proc stat line: CPU time %q", s)
		}
		ticks += uint64(n)
	}
	rssPages, err = strconv.ParseInt(string(f[21]), 10, 64)
	if err != nil || rssPages < 0 {
		return 0, 0, fmt.Errorf("malformed /proc stat line: rss %q", f[21])
	}
	return ticks, rssPages, nil
}

// treePids lists root and its descendants, breadth first, at most limit.
func treePids(root, limit int) ([]int, error) {
	pids := []int{root}
	for i := 0; i < len(pids) && len(pids) < limit; i++ {
		kids, err := childrenOf(pids[i])
		if err != nil && i == 0 {
			return nil, err
		}
		pids = append(pids, kids...)
	}
	return pids[:min(len(pids), limit)], nil
}

// childrenOf lists pid's children, from each of its threads' children
// file (a child belongs to the thread that forked it).
func childrenOf(pid int) ([]int, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list the threads of pid %d: %w", pid, err)
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			continue // the thread ended, or a kernel without the file: its children go uncounted
		}
		for f := range strings.FieldsSeq(string(b)) {
			if kid, err := strconv.Atoi(f); err == nil {
				kids = append(kids, kid)
			}
		}
	}
	return kids, nil
}
