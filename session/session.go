package session

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// Session is one supervised PTY. Create sessions with Manager.Start.
type Session struct {
	id       ID
	name     string
	provider string
	pty      providers.PTY
	opts     Options
	out      *Collector
	// writeNow and runner are pty and opts.Turns as the interfaces
	// Write and parse look for, found once: an assertion to an
	// interface at each key or read went to the runtime's table of them
	// (a call site's cache is filled on one miss in 1024), some 1.5 % of
	// the server's CPU for an idle key.
	writeNow writeNower
	runner   TurnRunner
	notify   func()
	adopt    func(func()) // hands the Manager a wait for provider calls teardown gave up on
	started  time.Time

	// input is the writer's queue, made with the writer: most panes
	// are never typed into past what the PTY takes at once (write.go),
	// and 48 panes' queues of inputQueueLen held 300 KB for nothing.
	input     chan []byte
	inputDone chan struct{} // closed to stop admission and the writer
	// writerMu orders the writer's start (at the first input, most
	// panes are never typed into) with teardown's close of inputDone,
	// so that no pump starts once teardown may be joining them.
	writerMu sync.Mutex
	writerOn atomic.Bool
	// writeMu is held by whoever writes input to the PTY: the writer
	// for a queued chunk, Write for a direct one (write.go). queued
	// counts the chunks queued and not yet written.
	writeMu sync.Mutex
	queued  atomic.Int32
	// deliverMu is held by whoever settles and delivers output, the
	// consumer for a window or the reader for a read, so that output
	// reaches the sinks in order and the collector's consumer side has
	// one user at a time.
	deliverMu sync.Mutex

	runCtx    context.Context // cancelled only after teardown, to free a stuck pump
	cancelRun context.CancelFunc

	reaped       chan struct{} // closed when the command was reaped
	outputClosed chan struct{} // closed when the consumer saw output closed
	exited       chan struct{} // closed when reaped and output closed
	pumps        sync.WaitGroup

	teardownOnce sync.Once
	calls        providerCalls // teardown's provider calls, each bounded by its stage (C15)
	killNow      chan struct{}
	killOnce     sync.Once
	tornDown     chan struct{} // processes gone, goroutines joined
	done         chan struct{} // after the hook: Closed

	lastOutput atomic.Int64
	bytesOut   atomic.Int64 // read from the PTY, for Info

	mu        sync.Mutex
	state     State
	stage     string
	exit      providers.ExitStatus
	exitKnown bool
	killed    bool
	// survivorList: what a failed teardown found alive (see Info).
	survivorList []providers.Process
	err          error
	reason       Reason
	saved        string
	// disconnected: the provider lost its connection (see Info).
	disconnected bool
}

func newSession(id ID, name, provider string, p providers.PTY, opts Options, notify func(), adopt func(func())) *Session {
	opts = opts.withDefaults()
	s := &Session{
		id: id, name: name, provider: provider, pty: p, opts: opts, notify: notify, adopt: adopt,
		out:          NewCollector(opts.QueueBytes),
		started:      time.Now(),
		inputDone:    make(chan struct{}),
		reaped:       make(chan struct{}),
		outputClosed: make(chan struct{}),
		exited:       make(chan struct{}),
		killNow:      make(chan struct{}),
		tornDown:     make(chan struct{}),
		done:         make(chan struct{}),
	}
	s.writeNow, _ = p.(writeNower)
	s.runner, _ = opts.Turns.(TurnRunner)
	// Detached from any caller: only teardown ends a session's pumps.
	s.runCtx, s.cancelRun = context.WithCancel(context.Background())
	return s
}

// start launches the session's goroutines; they are joined by teardown.
func (s *Session) start() {
	if s.opts.Screen != nil {
		s.opts.Screen.ReplyTo(inputWriter{s})
	}
	s.pumps.Go(s.readLoop)
	s.pumps.Go(s.consumeLoop)
	s.pumps.Go(s.waitLoop)
}

// startWriter starts the writer goroutine unless it runs or teardown
// has begun.
func (s *Session) startWriter() {
	s.writerMu.Lock()
	defer s.writerMu.Unlock()
	select {
	case <-s.inputDone:
		return
	default:
	}
	if !s.writerOn.Load() {
		s.input = make(chan []byte, inputQueueLen)
		s.writerOn.Store(true) // after input: enqueue reads it once this is set
		s.pumps.Go(s.writeLoop)
	}
}

// closeInput stops admission and the writer; no pump starts after it.
func (s *Session) closeInput() {
	s.writerMu.Lock()
	close(s.inputDone)
	s.writerMu.Unlock()
}

// ID returns the session's ID.
func (s *Session) ID() ID { return s.id }

// Exited is closed once the command was reaped and its output closed.
func (s *Session) Exited() <-chan struct{} { return s.exited }

// Done is closed once the session is Closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// LastOutput returns when output last arrived (zero before any). It never
// blocks.
func (s *Session) LastOutput() time.Time {
	if ns := s.lastOutput.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// Info returns a copy of the session's state.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := Info{
		ID: s.id, Name: s.name, Provider: s.provider, State: s.state, Stage: s.stage,
		Exit: s.exit, ExitKnown: s.exitKnown, Killed: s.killed, Survivors: s.survivorList, Err: s.err, Reason: s.reason, Saved: s.saved, Disconnected: s.disconnected,
		LastOutput: s.LastOutput(), Started: s.started, BytesOut: s.bytesOut.Load(),
	}
	if p, ok := s.pty.(providers.PIDer); ok {
		info.PID = p.PID()
	}
	if info.State == Running {
		// Exit is shown only after output closed (contract O7).
		info.Exit, info.ExitKnown = providers.ExitStatus{}, false
	}
	return info
}

func (s *Session) update(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
	s.notify()
}

func (s *Session) setStage(stage string) { s.update(func() { s.stage = stage }) }

// Resize sets the terminal size seen by the child.
func (s *Session) Resize(sz providers.Size) error {
	select {
	case <-s.tornDown:
		return ErrInputClosed
	default:
	}
	return s.pty.Resize(sz)
}

// consumeLoop delivers what the reader handed off, in windows.
func (s *Session) consumeLoop() {
	defer close(s.outputClosed)
	for {
		if err := s.awaitOutput(); err != nil {
			return
		}
		s.deliverMu.Lock()
		var text string
		var closed bool
		var err error
		// The reader may have settled the queue itself since.
		if s.out.Pending() {
			text, closed, err = s.out.Collect(s.runCtx, s.opts.Window)
		}
		s.deliver(text)
		s.deliverMu.Unlock()
		if closed || err != nil {
			return
		}
	}
}

// awaitOutput waits for output. While the screen holds a burst's scrollback
// unpacked it waits vt.BurstQuiet at most, then ends the burst: a pane
// that flooded and fell quiet keeps its scrollback packed.
func (s *Session) awaitOutput() error {
	sc := s.opts.Screen
	if sc == nil || !sc.Bursting() {
		return s.out.Await(s.runCtx)
	}
	ctx, cancel := context.WithTimeout(s.runCtx, vt.BurstQuiet)
	err := s.out.Await(ctx)
	cancel()
	if err == nil || s.runCtx.Err() != nil {
		return err
	}
	sc.EndBurst()
	return s.out.Await(s.runCtx)
}

// deliver gives settled text to the sinks and the screen.
func (s *Session) deliver(text string) {
	if text == "" {
		return
	}
	s.lastOutput.Store(time.Now().UnixNano())
	for _, sink := range s.opts.Sinks {
		sink.Output(text)
	}
	s.parse(text)
}

// waitLoop reaps the command, lets output drain for a bounded grace, and
// marks the session exited only when both facts hold (contract O7).
func (s *Session) waitLoop() {
	st, err := s.pty.Wait(s.runCtx)
	switch {
	case err == nil:
		s.update(func() { s.exit, s.exitKnown = st, true })
	case errors.Is(err, providers.ErrDisconnected):
		// Nothing more will come from the sandbox; show it as ended, and
		// how, rather than as running forever.
		s.update(func() {
			s.disconnected = true
			s.exit, s.exitKnown = providers.ExitStatus{Code: -1, Unknown: true}, true
		})
		err = nil
	case s.runCtx.Err() == nil:
		// Wait failed though no teardown cancelled the run (the provider
		// lost the process): the command is over as far as anyone can
		// tell. Show it ended, status unknown, rather than running for
		// good with nothing to wait for.
		s.update(func() { s.exit, s.exitKnown = providers.ExitStatus{Code: -1, Unknown: true}, true })
		err = nil
	}
	close(s.reaped)
	if err != nil {
		return // teardown cancelled the run: it reports the outcome
	}
	drain := time.NewTimer(s.opts.DrainGrace)
	defer drain.Stop()
	select {
	case <-s.outputClosed:
	case <-drain.C:
		// A background child holds the PTY open after the command ended.
		_ = s.pty.Signal(sigKill) // Best effort: the close below ends output regardless.
		_ = s.pty.Close()         // Best effort: teardown closes again and reports.
		<-s.outputClosed
	case <-s.runCtx.Done():
		return
	}
	s.update(func() {
		if s.state == Running {
			s.state = Exited
		}
	})
	close(s.exited)
}
