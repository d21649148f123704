package local

import (
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Walks of /proc. Only a walk over every process finds a session's
// members (the kernel keeps no list of them), and a pane's signals and
// its checks for survivors each need one. A teardown signals and checks
// every pane at once, so 48 panes walking each for themselves on a
// machine of a thousand processes took five seconds of CPU to quit.
// walker shares walks instead: a caller that asks while a walk is under
// way waits for the next one, which begins after it asked and so sees
// every process that existed then, and every caller that asked during the
// same walk shares the next.

// proc is one process as a walk found it.
type proc struct {
	pid     int
	st      procStat
	markers []string // a marker walk's: the entries of its environment that mark a pane
}

// aWalk is one walk: done closes once procs and err are set, and they
// are only read after that, by every caller that shared it. lead passes
// the making of it to one of them.
type aWalk struct {
	done  chan struct{}
	lead  chan struct{} // one slot
	procs []proc
	err   error
}

// walker coalesces walks. Whoever asks while nobody walks makes the walk;
// whoever asks meanwhile joins the next, and the one walking, once done,
// hands the making of that next walk to one of those who joined it. At
// most one walk runs at a time, each caller makes at most one, and none
// waits for more than two.
type walker struct {
	walk func() ([]proc, error) // walkProc; a gate in tests

	mu      sync.Mutex
	pending *aWalk // asked for and not begun: callers join it
	busy    bool   // a walk runs, or its lead is being handed on

	// joined, when set (tests), runs when a caller joins a walk another
	// caller will make.
	joined func()
}

// walks and markWalks are the process's walkers, shared by every pane:
// of every process's stat line, and of the live processes that carry a
// pane's marker (the containment of panes without a cgroup).
var (
	walks     = walker{walk: walkProc}
	markWalks = walker{walk: walkMarked}
)

// procs returns every process on the machine, as found by a walk that
// began after the call. The slice is shared: read it, never change it.
func (w *walker) procs() ([]proc, error) {
	w.mu.Lock()
	if w.pending == nil {
		w.pending = &aWalk{done: make(chan struct{}), lead: make(chan struct{}, 1)}
	}
	mine, lead := w.pending, !w.busy
	w.busy = true
	w.mu.Unlock()
	if !lead {
		if w.joined != nil {
			w.joined()
		}
		select {
		case <-mine.done:
			return mine.procs, mine.err
		case <-mine.lead:
		}
	}
	w.run(mine)
	return mine.procs, mine.err
}

// run makes wk, the pending walk, then hands the lead to a caller of the
// walk asked for meanwhile, if any. Only the caller holding the lead
// takes the pending walk, so it is still wk here.
func (w *walker) run(wk *aWalk) {
	w.mu.Lock()
	w.pending = nil
	w.mu.Unlock()
	wk.procs, wk.err = w.walk()
	close(wk.done)
	w.mu.Lock()
	if w.pending != nil {
		w.pending.lead <- struct{}{}
	} else {
		w.busy = false
	}
	w.mu.Unlock()
}

// walkProc reads the stat line of every process in /proc. A process that
// ended meanwhile is left out.
func walkProc() ([]proc, error) {
	pids, err := listPids()
	if err != nil {
		return nil, err
	}
	procs := make([]proc, 0, len(pids))
	for _, pid := range pids {
		if st, err := readStat(pid); err == nil {
			procs = append(procs, proc{pid: pid, st: st})
		}
	}
	return procs, nil
}

// walkMarked reads the environment of every live process but sandmux and
// the kernel's threads, and returns those that carry a pane's marker. A
// process whose environment reads empty is read again, envRetries times at
// most, all such together. An environment that cannot be read (another
// user's) carries no marker.
func walkMarked() ([]proc, error) {
	procs, err := walkProc()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	buf := make([]byte, envBufBytes)
	var marked, blank []proc
	for _, p := range procs {
		if p.pid == self || p.st.state == 'Z' || p.st.kthread {
			continue
		}
		marked, blank = sortMarked(p, buf, marked, blank)
	}
	for try := 0; try < envRetries && len(blank) > 0; try++ {
		time.Sleep(time.Millisecond) // no event marks the end of an exec
		again := blank
		blank = nil
		for _, p := range again {
			marked, blank = sortMarked(p, buf, marked, blank)
		}
	}
	return marked, nil
}

// sortMarked reads p's environment into buf: p is added to marked when it
// carries a marker, to blank when it reads empty.
func sortMarked(p proc, buf []byte, marked, blank []proc) ([]proc, []proc) {
	env, err := readSmall("/proc/"+strconv.Itoa(p.pid)+"/environ", buf)
	switch {
	case err != nil:
	case len(env) == 0:
		blank = append(blank, p)
	default:
		if p.markers = markersOf(env); len(p.markers) > 0 {
			marked = append(marked, p)
		}
	}
	return marked, blank
}

// markedProcs lists the live processes whose environment holds the
// entry kv, as a marker walk that began after the call found them.
func markedProcs(kv string) ([]proc, error) {
	procs, err := markWalks.procs()
	var found []proc
	for _, p := range procs {
		if slices.Contains(p.markers, kv) {
			found = append(found, p)
		}
	}
	return found, err
}
