package control

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Handler answers one request of any op but OpEvents, which Serve streams
// from the Hub itself. ctx ends when the client goes away or the server
// stops, so a long request (OpWait) returns then.
type Handler interface {
	Handle(ctx context.Context, req Request) Reply
}

// Attacher takes over a connection whose first request is OpAttach: from
// then on the connection is the attacher's, carrying frames (package
// attach), and no more lines are read from it. buffered holds the bytes
// that arrived after the request's line and were already read. The
// server still owns c: it is counted against the connection limit, Serve
// waits for AttachConn to return, and stopping the server closes c, so
// AttachConn must return once c fails. c is closed after it returns.
type Attacher interface {
	AttachConn(ctx context.Context, c *net.UnixConn, buffered []byte, req Request)
}

// Option configures a Server.
type Option func(*Server)

// WithAttacher hands connections that attach a terminal to a; without it
// the server answers OpAttach with an error.
func WithAttacher(a Attacher) Option { return func(s *Server) { s.attacher = a } }

// WithRefusals tells log of every connection refused (another user, too
// many connections), so that a server's log shows who was turned away.
func WithRefusals(log func(error)) Option { return func(s *Server) { s.refusals = log } }

// Peer checks a new connection before anything is read from it; an error
// refuses it with that message (endpoint.CheckPeer refuses other users).
type Peer func(*net.UnixConn) error

// Server limits.
const (
	// maxConns bounds the connections served at once; one past it is
	// refused with a message, so a runaway script cannot exhaust fds.
	maxConns = 256
	// writeTimeout bounds one reply line: a client that stops reading is
	// cut off, never waited for.
	writeTimeout = 10 * time.Second
)

// Server serves the control protocol on a listener. Every connection's
// goroutines are owned by it and waited for by Serve.
type Server struct {
	handler  Handler
	hub      *Hub
	peer     Peer
	attacher Attacher    // nil: attaching is refused
	refusals func(error) // nil: refusals are not logged

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[*net.UnixConn]struct{}
}

// NewServer answers requests with h and streams events from hub; peer, if
// not nil, vets each connection.
func NewServer(h Handler, hub *Hub, peer Peer, opts ...Option) *Server {
	s := &Server{handler: h, hub: hub, peer: peer, conns: map[*net.UnixConn]struct{}{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Serve accepts connections until ctx ends or the listener fails, then
// closes every connection and returns once all their goroutines are done.
func (s *Server) Serve(ctx context.Context, l *net.UnixListener) error {
	stop := context.AfterFunc(ctx, func() { _ = l.Close() }) // Best effort: Accept returns either way.
	defer stop()
	defer s.wg.Wait()
	defer s.stopConns()
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accept a control connection: %w", err)
		}
		if !s.admit(c) {
			continue
		}
		s.wg.Go(func() {
			defer s.drop(c)
			s.serveConn(ctx, c)
		})
	}
}

// admit registers c, or refuses it (too many, or a peer refused).
func (s *Server) admit(c *net.UnixConn) bool {
	var refusal error
	if s.peer != nil {
		refusal = s.peer(c)
	}
	s.mu.Lock()
	if refusal == nil && len(s.conns) >= maxConns {
		refusal = fmt.Errorf("the server already serves %d connections: close some and try again", maxConns)
	}
	if refusal == nil {
		s.conns[c] = struct{}{}
	}
	s.mu.Unlock()
	if refusal != nil {
		if s.refusals != nil {
			s.refusals(fmt.Errorf("refused a connection: %w", refusal))
		}
		_ = c.SetWriteDeadline(time.Now().Add(writeTimeout)) // Best effort: a refusal.
		_ = Encode(c, fail(refusal))                         // Best effort: it is refused either way.
		_ = c.Close()
		return false
	}
	return true
}

func (s *Server) drop(c *net.UnixConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	_ = c.Close() // Best effort: the connection is done.
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		_ = c.Close() // Best effort: ends each connection's reads and writes.
	}
}

// serveConn reads the first line itself, so that nothing past it is read
// when it attaches a terminal, then answers requests one at a time, in
// order.
func (s *Server) serveConn(ctx context.Context, c *net.UnixConn) {
	r := NewReader(c)
	first, err := r.Line()
	if errors.Is(err, ErrTooLong) {
		first = nil // answered as a bad request
	} else if err != nil {
		return
	}
	if req, err := DecodeRequest(first); err == nil && req.Op == OpAttach && s.attacher != nil {
		s.attacher.AttachConn(ctx, c, r.Buffered(), req)
		return
	}
	s.answerLines(ctx, c, r, first)
}

// answerLines answers first, then every later line. A reader goroutine
// watches the connection so that a client that goes away cancels the
// request in progress.
func (s *Server) answerLines(ctx context.Context, c *net.UnixConn, r *Reader, first []byte) {
	ctx, cancel := context.WithCancel(ctx)
	lines := make(chan []byte)
	var reader sync.WaitGroup
	defer func() {
		cancel()
		_ = c.Close() // Best effort: ends the reader's Read.
		reader.Wait()
	}()
	reader.Go(func() {
		defer cancel() // the client went away, or sent something unreadable
		for {
			line, err := r.Line()
			if errors.Is(err, ErrTooLong) {
				line = nil // answered as a bad request below
			} else if err != nil {
				return
			}
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
	})
	if !s.answer(ctx, c, first) {
		return
	}
	for {
		select {
		case line := <-lines:
			if !s.answer(ctx, c, line) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// answer handles one line and reports whether the connection goes on.
func (s *Server) answer(ctx context.Context, c *net.UnixConn, line []byte) bool {
	if line == nil {
		return s.reply(c, fail(ErrTooLong))
	}
	req, err := DecodeRequest(line)
	if err != nil {
		return s.reply(c, fail(err))
	}
	switch req.Op {
	case OpEvents:
		s.stream(ctx, c)
		return false
	case OpAttach:
		return s.reply(c, fail(s.attachRefusal()))
	}
	return s.reply(c, s.handler.Handle(ctx, req))
}

func (s *Server) reply(c *net.UnixConn, r Reply) bool {
	r.V = Version
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout)) // Best effort: without it, a stalled client only holds its own goroutine.
	return Encode(c, r) == nil
}

// attachRefusal says why OpAttach was not taken: it is not the first
// request (the connection already speaks lines), or this server has no
// terminals to give.
func (s *Server) attachRefusal() error {
	if s.attacher == nil {
		return errors.New("this server does not attach terminals: use a sandmux server of the same version, started by `sandmux` or `sandmux serve`")
	}
	return errors.New("attach must be the first request on a connection: open a new connection to attach")
}

// errDropped is the last line a stalled events reader gets.
var errDropped = errors.New("dropped: this reader fell too far behind the events; reconnect to go on")

// stream sends events until the client goes away, ctx ends, or the hub
// drops the subscription, which is said in a last line.
func (s *Server) stream(ctx context.Context, c *net.UnixConn) {
	sub := s.hub.Subscribe()
	defer sub.Close()
	if !s.reply(c, Reply{OK: true}) {
		return
	}
	for {
		select {
		case e := <-sub.Events():
			if !s.reply(c, Reply{OK: true, Event: &e}) {
				return
			}
		case <-sub.Dropped():
			s.reply(c, fail(errDropped))
			return
		case <-ctx.Done():
			s.reply(c, fail(errStopping))
			return
		}
	}
}

// errStopping is the last line a stream or a waiting request gets when
// the server stops (it quit).
var errStopping = errors.New("the server stopped (it quit); start one with sandmux, or sandmux ls for those running")

// stopGrace bounds how long a stopping server lets its connections say
// their last line (errStopping) before it closes them.
const stopGrace = 2 * time.Second

// stopConns gives the connections, whose context ended with the
// server's, a bounded moment to end by themselves with their last line,
// then closes those left.
func (s *Server) stopConns() {
	ended := make(chan struct{})
	go func() { // owned here: it ends once every connection has
		s.wg.Wait()
		close(ended)
	}()
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-ended:
	case <-t.C:
	}
	s.closeAll()
	<-ended
}

// fail is the reply for an error.
func fail(err error) Reply { return Reply{V: Version, Error: err.Error()} }

// Fail is the reply a Handler gives for an error.
func Fail(err error) Reply { return fail(err) }
