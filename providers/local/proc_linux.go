package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sandmux/sandmux/termsafe"
)

// procStat is what sandmux reads of /proc/PID/stat. A zombie's stat is
// still readable: its state, parent, group, session and start time stay
// until it is reaped.
type procStat struct {
	state   byte
	ppid    int
	pgrp    int
	session int
	start   uint64 // clock ticks after boot; with the pid, it names one process
	kthread bool
}

// pfKthread is the kernel's PF_KTHREAD in a stat line's flags.
const pfKthread = 0x00200000

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// parseStat parses a stat line. The command name may hold spaces and
// parentheses, so the fields are counted from its last closing one.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed /proc stat line")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errors.New("malformed /proc stat line")
	}
	var st procStat
	var errs [5]error
	var flags uint64
	st.state = f[0][0]
	st.ppid, errs[0] = strconv.Atoi(f[1])
	st.pgrp, errs[1] = strconv.Atoi(f[2])
	st.session, errs[2] = strconv.Atoi(f[3])
	flags, errs[3] = strconv.ParseUint(f[6], 10, 64)
	st.start, errs[4] = strconv.ParseUint(f[19], 10, 64)
	st.kthread = flags&pfKthread != 0
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat line: %w", err)
	}
	return st, nil
}

// listPids lists the processes in /proc.
func listPids() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	pids := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// childPids lists this process's children: /proc/self/task/*/children,
// since a child belongs to the thread that forked it or, when adopted, to
// any thread. Without that file (a kernel built without it) it falls back
// to scanning /proc for our pid as parent.
func childPids() ([]int, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	var pids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if errors.Is(err, os.ErrNotExist) {
			if _, statErr := os.Stat("/proc/self/task/" + t.Name()); statErr == nil {
				return scanChildren()
			}
			continue // the thread ended meanwhile
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids, nil
}

func scanChildren() ([]int, error) {
	self := os.Getpid()
	return pidsWhere(func(pid int) bool {
		st, err := readStat(pid)
		return err == nil && st.ppid == self
	})
}

// pidsWhere lists the processes in /proc that keep accepts.
func pidsWhere(keep func(pid int) bool) ([]int, error) {
	all, err := listPids()
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, pid := range all {
		if keep(pid) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// ownCgroup returns pid's cgroup v2 path as /proc/PID/cgroup shows it (the
// "0::" line), without the " (deleted)" the kernel adds once it is removed.
func procCgroup(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return strings.TrimSuffix(strings.TrimSpace(rest), " (deleted)")
		}
	}
	return ""
}

// hasEnv reports whether pid's environment holds the exact entry kv. A
// zombie's, a kernel thread's and another user's read as empty, and so
// does a process's for an instant while it execs: an empty environment is
// read again a few times before it counts as not holding kv.
func hasEnv(pid int, kv string) bool {
	for try := 0; ; try++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			return false
		}
		if len(b) > 0 || try == 3 {
			return containsEntry(b, kv)
		}
		time.Sleep(time.Millisecond) // no event marks the end of an exec
	}
}

func containsEntry(env []byte, kv string) bool {
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		if string(entry) == kv {
			return true
		}
	}
	return false
}

// commandOf names pid for a message: its command line, or its name in
// brackets when it has none (a kernel thread, a zombie). Control
// characters are shown escaped: the text comes from the sandbox.
func commandOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	cmd := strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	if err != nil || cmd == "" {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		cmd = "[" + strings.TrimSpace(string(comm)) + "]"
	}
	const maxLen = 200
	if len(cmd) > maxLen {
		cmd = cmd[:maxLen] + "…"
	}
	return termsafe.String(cmd)
}
