package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/ui"
)

// Options configure a Server.
type Options struct {
	// Size lays the panes out until a client attaches.
	Size attach.Size
	// HangupQuits makes a client whose terminal went away (not one that
	// detached) quit the server, as server.on_hangup = "quit" asks.
	HangupQuits bool
	// Log, when set, is told of every attach and detach.
	Log func(v ...any)
	// Filter, when set, sees every message before the model does (tests
	// use it to make the model panic).
	Filter func(tea.Model, tea.Msg) tea.Msg
	// QuitGrace, when set, replaces quitGrace (tests).
	QuitGrace time.Duration
}

func (o Options) quitGrace() time.Duration {
	if o.QuitGrace > 0 {
		return o.QuitGrace
	}
	return quitGrace
}

// Server runs a ui.Model for any number of attached clients.
type Server struct {
	opts  Options
	model *ui.Model
	core  *loop

	mu      sync.Mutex
	nextID  int
	clients map[int]*client
	final   *attach.Exit  // set once the quit settled: how every client ends
	ended   chan struct{} // closed once the core loop returned
	wg      sync.WaitGroup
	// attached counts the clients not yet finished: Run returns only once
	// each has its exit, so stopping the listeners cuts no summary off.
	attached sync.WaitGroup
}

// New returns a server over model; Run runs it.
func New(model *ui.Model, o Options) *Server {
	s := &Server{opts: o, model: model, clients: map[int]*client{}, ended: make(chan struct{})}
	// The core reads no terminal and draws none: each client's view has
	// a Terminal of its own, so the model runs in the server's own loop
	// (loop.go), which waits on the redraw loop's signals itself.
	s.core = newLoop(model, o.Filter)
	model.WatchInLoop(s.core.TryWake)
	return s
}

// Send hands msg to the model's loop; it never blocks for long.
func (s *Server) Send(msg tea.Msg) { s.core.Send(msg) }

// Do runs fn on the model's loop and waits until it ran, or the server
// ended (false).
func (s *Server) Do(ctx context.Context, fn func(*ui.Model) tea.Cmd) bool {
	ran := make(chan struct{})
	s.wg.Go(func() {
		s.core.Send(ui.DoMsg{Fn: func(m *ui.Model) tea.Cmd { defer close(ran); return fn(m) }})
	})
	select {
	case <-ran:
		return true
	case <-s.ended:
		return false
	case <-ctx.Done():
		return false
	}
}

// Run starts the panes and runs the model until the quit settled; then
// it asks finish how every client ends (the summary and the status),
// finishes each with it, and returns once all are gone.
func (s *Server) Run(finish func(runErr error) attach.Exit) error {
	// Send delivers on this goroutine: the panes start before the loop
	// waits on anything.
	s.core.Send(ui.StartMsg{Width: s.opts.Size.Width, Height: s.opts.Size.Height})
	err := s.core.run()
	if err != nil {
		err = fmt.Errorf("the server's UI failed: %w", err)
	}
	exit := finish(err)
	s.mu.Lock()
	s.final = &exit
	close(s.ended)
	s.mu.Unlock()
	s.wg.Wait()
	s.waitClients()
	return err
}

// quitGrace is how long the clients have, once the quit settled, to take
// their last frame and summary. A client that has not finished by then
// (it reads nothing, and its transport's write bound has not run out
// yet) is cut off, so a quit ends within this bound whatever a client
// does (A11).
const quitGrace = 5 * time.Second

// waitClients waits until every client finished, cutting off those left
// after quitGrace.
func (s *Server) waitClients() {
	done := make(chan struct{})
	go func() { s.attached.Wait(); close(done) }() // Joined below: done closes.
	t := time.NewTimer(s.opts.quitGrace())
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	if n := s.Cut(); n > 0 {
		s.log(fmt.Sprintf("cut off %d client(s) that did not take the quit's summary within %v", n, s.opts.quitGrace()))
	}
	<-done
}

// Cutter is a Stream that can be cut off at once: its connection closed,
// so that a write waiting for the client fails and its input ends. The
// local wire's Conn and SSH's streams are.
type Cutter interface{ Cut() }

// Cut cuts off every attached client whose stream is a Cutter, without
// waiting, and says how many: for a quit that must end now (a second
// SIGTERM) or a client that holds up the quit.
func (s *Server) Cut() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.clients {
		if cu, ok := c.st.(Cutter); ok {
			cu.Cut()
			n++
		}
	}
	return n
}

// Done is closed once the model's program returned.
func (s *Server) Done() <-chan struct{} { return s.ended }

// Clients is how many clients are attached.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

func (s *Server) log(msg string) {
	if s.opts.Log != nil {
		s.opts.Log(msg)
	}
}
