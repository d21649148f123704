package server

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/ui"
)

// The model's loop. The core is a Bubble Tea model that reads and draws
// no terminal, so it runs in a loop of the server's own rather than in a
// tea.Program, which passed every message through a goroutine of its own
// and started one more for each command, and let the redraw loop's
// signals reach the model only through a command that waited on them: a
// key and its echo crossed three hand-offs between goroutines, each a
// thread woken on a 2-core machine.
//
// Here the model is a value behind a lock, and whoever has a message for
// it delivers it: a client's input goroutine its keys, a command's
// goroutine what the command returned (Send). The loop's own goroutine
// (run) only waits on the redraw loop's signals while the model watches
// them. And the goroutine that parsed an awaited echo draws it (TryWake)
// when the model is free. So a key reaches its pane's PTY, and its echo
// the client's terminal, with no goroutine hand-off (the echo, unless
// another message holds the model: then run's goroutine delivers it);
// the lock keeps one message at a time, in the order each sender sent
// them. After an Update that wrote a key's echo to a client's terminal
// itself, the goroutine that delivered it yields its thread once it let
// the model go (yieldThread: yield_linux.go says why), then delivers what
// the model put off until then (deferrer).

// watched is a model whose redraw loop the loop waits on itself
// (ui.Model after WatchInLoop): Watched gives the signals it waits on
// now, nil channels while it waits on none; the one that came is
// delivered as a ui.WakeMsg.
type watched interface {
	tea.Model
	Watched() (wake, changed, stop <-chan struct{})
}

// echoWriter is a model that says whether the Update it just ran wrote a
// key's echo to a terminal itself (ui.Model).
type echoWriter interface{ EchoWritten() bool }

// deferrer is a model that has, after an Update, a message for once the
// model is free and its thread stepped aside (ui.Model's TakeDeferred:
// the rules' read of an echo's screen, which would have held the echo).
type deferrer interface{ TakeDeferred() tea.Msg }

// loop runs a model until it quits (tea.QuitMsg) or panics.
type loop struct {
	model  watched
	echoes echoWriter // the model, when it says so; nil otherwise
	defers deferrer   // the same
	filter func(tea.Model, tea.Msg) tea.Msg
	// plain is the model as the filter takes it, converted once: a
	// conversion between interfaces at every message went to the
	// runtime's table of them.
	plain tea.Model

	// mu is held while the model handles a message, and guards the rest.
	mu sync.Mutex
	// ended: the model quit or panicked; nothing more is delivered.
	ended bool
	// waiting is what run waits on now; when a message delivered
	// elsewhere changes what the model watches, reselect tells run.
	waiting  [3]<-chan struct{}
	reselect chan struct{} // one slot
	end      chan error    // one slot: why the model ended, nil for a quit
	over     chan struct{} // closed once the model ended: idle workers leave
	// stepAside: the Update just delivered wrote an echo itself; the
	// goroutine yields its thread after letting the model go (unlock).
	stepAside bool
	// deferred: what the model has for after the unlock (deferrer), sent
	// there by the goroutine that delivered the Update.
	deferred tea.Msg

	// work hands a command to a worker that waits for one: unbuffered,
	// so a send succeeds only while one waits, and no command queues
	// behind another. idle counts the workers that wait.
	work chan tea.Cmd
	idle atomic.Int32
}

// maxIdleWorkers bounds the workers that wait for a command: a frame's
// tick, the wait for a pacing tick's end, a usage round and a list of
// the panes run at once at most, most of the time.
const maxIdleWorkers = 4

func newLoop(m watched, filter func(tea.Model, tea.Msg) tea.Msg) *loop {
	echoes, _ := m.(echoWriter)
	defers, _ := m.(deferrer)
	return &loop{
		model: m, echoes: echoes, defers: defers, filter: filter, plain: m,
		reselect: make(chan struct{}, 1), end: make(chan error, 1), over: make(chan struct{}),
		work: make(chan tea.Cmd),
	}
}

// Send delivers msg to the model on the caller's goroutine, waiting for
// the one in progress; once the model ended it is dropped.
func (l *loop) Send(msg tea.Msg) {
	if msg == nil {
		return
	}
	l.mu.Lock()
	defer l.unlock()
	l.deliver(msg, false)
}

// yieldThread is schedYield; a test counts the yields.
var yieldThread = schedYield

// unlock lets the model go, then yields the thread if the Update just
// delivered wrote an echo itself.
func (l *loop) unlock() {
	aside, next := l.stepAside, l.deferred
	l.stepAside, l.deferred = false, nil
	l.mu.Unlock()
	if aside {
		yieldThread()
	}
	if next != nil {
		l.Send(next)
	}
}

// TryWake delivers the redraw loop's wake from the goroutine that parsed
// an awaited echo (its screen held back its poke of the wake, which
// would have readied run's goroutine first), if the model is free and
// watches: the echo is drawn there and then. It reports whether it did;
// if not, the caller pokes the wake, and run delivers it as ever.
func (l *loop) TryWake() bool {
	if !l.mu.TryLock() {
		return false
	}
	defer l.unlock()
	wake, _, _ := l.model.Watched()
	if wake == nil || l.ended {
		return false
	}
	select {
	case <-wake: // another screen's poke: this delivery is its too
	default:
	}
	l.deliver(ui.WakeMsg{Kind: ui.WakeDirty}, false)
	return true
}

// run waits on the redraw loop's signals, delivering each, until the
// model quits or panics.
func (l *loop) run() error {
	l.mu.Lock()
	l.exec(l.model.Init())
	for !l.ended {
		wake, changed, stop := l.model.Watched()
		l.waiting = [3]<-chan struct{}{wake, changed, stop}
		l.unlock()
		var msg tea.Msg
		select {
		case <-l.reselect:
		case <-wake:
			msg = ui.WakeMsg{Kind: ui.WakeDirty}
		case <-changed:
			msg = ui.WakeMsg{Kind: ui.WakeChanged}
		case <-stop:
			msg = ui.WakeMsg{Kind: ui.WakeStop}
		case err := <-l.end:
			return err // ended by a message delivered elsewhere
		}
		l.mu.Lock()
		if msg != nil {
			l.deliver(msg, true)
		}
	}
	l.mu.Unlock()
	return <-l.end // finish, which ended it, left why
}

// deliver hands msg to the model, under mu; a panic ends the model with
// an error that holds the panic's stack. byRun says run delivers it,
// which looks at what the model watches next anyway.
func (l *loop) deliver(msg tea.Msg, byRun bool) {
	if l.ended {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			l.finish(panicked(r, debug.Stack()))
		}
	}()
	if l.filter != nil {
		if msg = l.filter(l.plain, msg); msg == nil {
			return
		}
	}
	switch msg := msg.(type) {
	case tea.QuitMsg:
		l.finish(nil)
		return
	case tea.BatchMsg:
		for _, c := range msg {
			l.exec(c)
		}
		return
	}
	_, cmd := l.model.Update(msg)
	if l.echoes != nil && l.echoes.EchoWritten() {
		l.stepAside = true
	}
	if l.defers != nil && l.deferred == nil {
		l.deferred = l.defers.TakeDeferred()
	}
	l.exec(cmd)
	if byRun {
		return
	}
	if wake, changed, stop := l.model.Watched(); [3]<-chan struct{}{wake, changed, stop} != l.waiting {
		select {
		case l.reselect <- struct{}{}:
		default:
		}
	}
}

// finish ends the model, under mu, and wakes run.
func (l *loop) finish(err error) {
	if l.ended {
		return
	}
	l.ended = true
	close(l.over)
	select {
	case l.end <- err:
	default:
	}
}

// exec runs cmd on a goroutine of its own, which delivers what it
// returns; a batch's commands each get one, without a delivery between.
// Like Bubble Tea's, a command's goroutine is not waited for: a timer's
// sleeps out its time, and what it returns after the end is dropped.
//
// The goroutine is a worker that waited for a command, when one does:
// most commands are a frame's tick, and the frame they bring is drawn on
// the goroutine that delivers it, deep in calls. A new goroutine for
// each grew its stack from 2 KiB again, copying it frame by frame, some
// 30 times a second.
func (l *loop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	select {
	case l.work <- cmd:
	default:
		go l.worker(cmd) // Owned by the loop: see worker.
	}
}

// worker runs cmd, then waits for the next command exec hands it, until
// the model ended or enough other workers wait.
func (l *loop) worker(cmd tea.Cmd) {
	for {
		l.runCmd(cmd)
		if l.idle.Add(1) > maxIdleWorkers {
			l.idle.Add(-1)
			return
		}
		select {
		case cmd = <-l.work:
			l.idle.Add(-1)
		case <-l.over:
			l.idle.Add(-1)
			return
		}
	}
}

// runCmd runs cmd and delivers what it returns; a batch's commands go
// back to exec. A panic ends the model with its stack.
func (l *loop) runCmd(cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			l.mu.Lock()
			l.finish(panicked(r, debug.Stack()))
			l.mu.Unlock()
		}
	}()
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			l.exec(c)
		}
	default:
		l.Send(msg)
	}
}

// errPanicked is what a run that panicked returns, wrapped with the panic
// and its stack for the log.
var errPanicked = errors.New("the server's model panicked")

func panicked(r any, stack []byte) error {
	return fmt.Errorf("%w: %v\n%s", errPanicked, r, stack)
}
