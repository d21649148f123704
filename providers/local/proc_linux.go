package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

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

// statBufBytes holds any stat line: 52 numbers and a name of at most 64
// bytes (a kernel thread's); a longer one is read again whole.
const statBufBytes = 1024

// readStat reads pid's stat line. A walk reads one for every process on
// the machine, so it takes an open, a read and a close, and parses in
// place.
func readStat(pid int) (procStat, error) {
	var buf [statBufBytes]byte
	b, err := readSmall("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
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
	var f [20][]byte
	if fields(b[i+1:], f[:]) < len(f) || len(f[0]) != 1 {
		return procStat{}, errors.New("malformed /proc stat line")
	}
	var st procStat
	var errs [5]error
	var flags uint64
	st.state = f[0][0]
	st.ppid, errs[0] = strconv.Atoi(string(f[1]))
	st.pgrp, errs[1] = strconv.Atoi(string(f[2]))
	st.session, errs[2] = strconv.Atoi(string(f[3]))
	flags, errs[3] = strconv.ParseUint(string(f[6]), 10, 64)
	st.start, errs[4] = strconv.ParseUint(string(f[19]), 10, 64)
	st.kthread = flags&pfKthread != 0
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat line: %w", err)
	}
	return st, nil
}

// fields fills dst with the first len(dst) fields of b, split at ASCII
// white space as strings.Fields would split a stat line, and returns how
// many it found; unlike strings.Fields it allocates nothing.
func fields(b []byte, dst [][]byte) int {
	n := 0
	for n < len(dst) {
		for len(b) > 0 && asciiSpace(b[0]) {
			b = b[1:]
		}
		if len(b) == 0 {
			break
		}
		end := 0
		for end < len(b) && !asciiSpace(b[end]) {
			end++
		}
		dst[n], b = b[:end], b[end:]
		n++
	}
	return n
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
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

// scanChildren finds this process's children in a walk of /proc.
func scanChildren() ([]int, error) {
	procs, err := walks.procs()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var pids []int
	for _, p := range procs {
		if p.st.ppid == self {
			pids = append(pids, p.pid)
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

// envRetries is how many more times an environment that read empty is
// read, a millisecond apart: a process's reads empty for an instant while
// it execs, and no event marks the end of an exec.
const envRetries = 3

// envBufBytes holds most environments whole; a larger one is read again
// whole (readSmall).
const envBufBytes = 16 << 10

// markersOf returns the entries of the environment env (NUL-separated,
// as /proc/PID/environ holds it) that mark a pane: markerVar=VALUE.
func markersOf(env []byte) []string {
	var found []string
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		if len(entry) > len(markerVar) && entry[len(markerVar)] == '=' && string(entry[:len(markerVar)]) == markerVar {
			found = append(found, string(entry))
		}
	}
	return found
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
