package local

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// Containment: which processes belong to a pane, beyond its session.
//
// The child is a session leader, and most of what it starts stays in its
// session; teardown signals and verifies every group of that session. But
// setsid(1), a daemon's double fork, or a job that makes a session of its
// own leaves it, and a kill resting on the session would miss them.
//
//   - With a cgroup (cgroup_linux.go) the pane is its cgroup: nothing a
//     process does from inside gets it out (short of root writing another
//     cgroup's cgroup.procs).
//   - Without one, the pane is its session plus every process carrying the
//     pane's marker, markerVar=<unique id>, in its environment: each
//     process the pane starts inherits it, and sandmux, as the subreaper,
//     adopts those whose parents exit. A process that clears or rewrites its
//     environment (env -i) escapes the fallback. A zombie's environment
//     reads empty, and so does a dying process's once the kernel has
//     released its memory, before it is a zombie: so a process once found
//     marked is counted as the pane's until it is a zombie or gone
//     (markedSeen), or a teardown could pass it for gone while it is still
//     exiting and its zombie would outlive the reap that follows. Only
//     processes whose environment sandmux may read (its own user's, or all
//     as root) are found.
//
// markerVar is the same name the ssh provider marks a pane's remote
// processes with.
const markerVar = "SANDMUX_PANE_ID"

// newMarker returns markerVar=<id> for a new pane, unique on this machine.
func newMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // Never fails on Linux (Go's crypto/rand panics rather than return short).
	return fmt.Sprintf("%s=local-%d-%s", markerVar, os.Getpid(), hex.EncodeToString(b))
}

// contained lists the pane's live processes found beyond its session: the
// processes in its cgroup, or those carrying its marker.
func (h *handle) contained() ([]int, error) {
	if h.cg != nil {
		if h.cg.isRemoved() {
			return nil, nil // verified empty
		}
		return h.cg.procs()
	}
	return h.marked()
}

// containedGroups returns the process groups of contained processes.
// sandmux's own group and group 1 are never among them.
func (h *handle) containedGroups() ([]int, error) {
	pids, err := h.contained()
	own := []int{0, 1, os.Getpid(), ownPgrp()}
	var groups []int
	for _, pid := range pids {
		st, serr := readStat(pid)
		if serr != nil || st.state == 'Z' || slices.Contains(own, st.pgrp) || slices.Contains(groups, st.pgrp) {
			continue
		}
		groups = append(groups, st.pgrp)
	}
	return groups, err
}

func ownPgrp() int {
	st, err := readStat(os.Getpid())
	if err != nil {
		return -1
	}
	return st.pgrp
}

// containedAlive reports whether a live process of the pane is left
// beyond its session.
func (h *handle) containedAlive() (bool, error) {
	if h.cg != nil {
		if h.cg.isRemoved() {
			return false, nil
		}
		return h.cg.populated()
	}
	pids, err := h.marked()
	return len(pids) > 0, err
}

// marked lists the live processes carrying the pane's marker, and those
// found carrying it before that are still alive and not yet zombies (their
// environment may read empty while they exit).
func (h *handle) marked() ([]int, error) {
	found, err := markedProcs(h.marker)
	h.seenMu.Lock()
	defer h.seenMu.Unlock()
	if h.seen == nil {
		h.seen = map[int]uint64{}
	}
	pids := make([]int, 0, len(found))
	for _, p := range found {
		h.seen[p.pid] = p.st.start
		pids = append(pids, p.pid)
	}
	for pid, start := range h.seen {
		if slices.Contains(pids, pid) {
			continue // the walk just found it alive
		}
		st, serr := readStat(pid)
		if serr != nil || st.start != start || st.state == 'Z' {
			delete(h.seen, pid) // gone, reused, or a zombie for the reaper
			continue
		}
		pids = append(pids, pid)
	}
	return pids, err
}

// Survivors names the pane's processes still alive, for a teardown that
// could not verify the pane gone (providers.SurvivorLister).
func (h *handle) Survivors() []providers.Process {
	if h.gone.Load() {
		return nil
	}
	members, _ := sessionMembers(h.pgid, h.pgid) // Best effort: what it found is still worth naming.
	pids := make([]int, 0, len(members))
	for _, m := range members {
		pids = append(pids, m.pid)
	}
	extra, _ := h.contained() // Best effort, as above.
	for _, pid := range extra {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	var out []providers.Process
	for _, pid := range pids {
		if st, err := readStat(pid); err == nil && st.state != 'Z' {
			out = append(out, providers.Process{PID: pid, Command: commandOf(pid)})
		}
	}
	return out
}

// releaseWait bounds how long Close waits for a killed cgroup to empty.
const releaseWait = 2 * time.Second

// release kills what is left in the cgroup, waits a short bound for it to
// empty (the kernel kills asynchronously and has no event sandmux waits
// on here), reaps the zombies and removes the cgroup.
func (c *cgroup) release() error {
	if c.isRemoved() {
		return nil
	}
	full, err := c.populated()
	if errors.Is(err, os.ErrNotExist) {
		return c.remove() // removed from outside: only our descriptor is left
	}
	if full {
		_ = c.kill() // Best effort: the removal below reports what is left.
		for delay, waited := time.Millisecond, time.Duration(0); waited < releaseWait; delay = min(2*delay, 50*time.Millisecond) {
			if full, err := c.populated(); !full || err != nil {
				break
			}
			time.Sleep(delay)
			waited += delay
		}
	}
	orphans.reapOrphans()
	if err := c.remove(); err != nil {
		if pids, _ := c.procs(); len(pids) > 0 {
			return fmt.Errorf("%w: %d processes survived SIGKILL", err, len(pids))
		}
		return err
	}
	return nil
}
