package parsegate

import (
	"runtime"
	"slices"
	"time"
)

// Background turns: a slice of a flood from a pane nobody focuses is
// parsed on a thread of lower priority than the rest of the server (a
// nice of backgroundNice more), so that a key's way through the
// kernel, the server's input and model, the child that echoes it and
// the terminal that shows it goes first wherever the machine is short
// of cores. Beside four panes catting 20 MB over and over on 2 cores, a
// key's echo took a median 0.95 to 1.31 ms and a p90 of 5.0 to 7.5 with
// the floods parsed at the server's priority, 0.58 to 0.78 and 2.5 to
// 4.0 with them here. A core the key does not need is the flood's
// whole: priority orders threads that wait for a core, it takes nothing
// from one that does not wait.
//
// The lower priority stays with the thread: Linux lets a thread raise
// its nice value but not lower it again without a privilege, so the
// work moves to threads kept for it rather than the thread moving to
// the work. Those are the gate's workers: one is started when a
// background turn finds none waiting, and each ends (its thread with
// it) once backgroundIdle passed with no turn for it, or once New's
// context is done. A worker waits again before it says its slice was
// parsed, and at most the gate's width of turns run at once, so there
// are that many workers at most.
const (
	backgroundNice = 10
	backgroundIdle = 2 * time.Second
)

// backgroundJob is one slice's parse and where to say it ended.
type backgroundJob struct {
	parse func()
	done  chan any // one slot: nil, or what parse panicked with
}

// RunTurn takes a turn and runs parse in it (a session.TurnRunner, which
// hands it a flood's large slices only), on a background worker
// unless the pane is some client's focus or its echo is awaited (those
// parse on the caller's goroutine, at the server's priority). A panic
// in parse is raised again here, on the caller's goroutine.
func (t *Turns) RunTurn(parse func()) {
	t.Take()
	defer t.Give()
	if t.passed || t.focused.Load() {
		parse()
		return
	}
	t.gate.background(backgroundJob{parse: parse, done: t.done})
	if r := <-t.done; r != nil {
		panic(r)
	}
}

// background hands job to the worker that waited last, or starts one.
func (g *Gate) background(job backgroundJob) {
	g.mu.Lock()
	if n := len(g.idle); n > 0 {
		w := g.idle[n-1]
		g.idle = g.idle[:n-1]
		w <- job // its one slot is empty: it was idle
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	go g.work(job) // Owned by the gate: ends after backgroundIdle idle (work).
}

// work runs jobs on a thread of its own at a lower priority, until it
// waited backgroundIdle for one or the gate's context is done. It is
// among the gate's idle before it says a job ended, so the turn that
// follows finds it. It never unlocks
// the thread: a goroutine that ends locked ends its thread, so no other
// goroutine of the server ever runs at the lowered priority.
func (g *Gate) work(job backgroundJob) {
	runtime.LockOSThread()
	lowerPriority()
	w := make(chan backgroundJob, 1) // the jobs handed to this worker, one at a time
	idle := time.NewTimer(backgroundIdle)
	defer idle.Stop()
	for {
		r := runJob(job.parse)
		g.mu.Lock()
		g.idle = append(g.idle, w)
		g.mu.Unlock()
		job.done <- r
		idle.Reset(backgroundIdle)
		select {
		case job = <-w:
			continue
		case <-idle.C:
		case <-g.done:
		}
		g.mu.Lock()
		if i := slices.Index(g.idle, w); i >= 0 {
			g.idle = slices.Delete(g.idle, i, i+1)
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		job = <-w // taken from the idle as it stopped waiting: its job was sent then
	}
}

// runJob runs parse, returning what it panicked with (nil if nothing).
func runJob(parse func()) (r any) {
	defer func() { r = recover() }() // never nil for a panic, even panic(nil)
	parse()
	return nil
}
