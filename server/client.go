package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/termsize"
	"github.com/sandmux/sandmux/ui"
	"github.com/sandmux/sandmux/ui/term"
)

// client is one attached terminal: its stream, the Terminal that draws
// its view, and the guard its input is decoded from.
type client struct {
	id   int
	st   attach.Stream
	term *term.Terminal
	// input is the stream's input, bounded (A13); readInput decodes it.
	input *inputGuard
	// gone is closed when the terminal went away (its input ended);
	// detach when the client asked to leave (prefix d).
	gone, detach chan struct{}
	// over is closed once the attachment ended, whatever ended it: the
	// resize relay stops then (a stream need not close its Resizes).
	over       chan struct{}
	detachOnce sync.Once
	// clamped: a size over termsize's bounds was logged already. Read
	// and written by Attach, then only by relayResizes.
	clamped bool
}

// Attach runs a client's view over st until the client detaches, its
// terminal goes away, or the server quit; then it has finished st with
// how it ended. ctx ending detaches the client.
func (s *Server) Attach(ctx context.Context, st attach.Stream) error {
	hello := st.Hello()
	c, err := s.admit(st)
	if err != nil {
		_ = st.Finish(attach.Exit{Code: 1, Summary: "sandmux: " + err.Error() + "\n"}) // Best effort: it is refused either way.
		return err
	}
	s.log(termsafe.String(fmt.Sprintf("client %d attached: %s, %dx%d%s", c.id, hello.Who, hello.Size.Width, hello.Size.Height, readOnlyWord(hello.ReadOnly))))
	hello.Size = c.fit(s, hello.Size)
	s.core.Send(ui.AttachMsg{ID: c.id, Term: c.term, Width: hello.Size.Width, Height: hello.Size.Height,
		ReadOnly: hello.ReadOnly, Dir: hello.Dir, Detached: func() { c.detachOnce.Do(func() { close(c.detach) }) }})
	// Resizes and input are relayed once the model knows the view they
	// are for. A resize relayed before could reach the model ahead of the
	// attach, be dropped as one of no client, and leave the client drawn
	// at its hello's size (a window manager sizes a new terminal as it
	// opens); the stream holds what comes meanwhile.
	var loops sync.WaitGroup
	loops.Go(func() { s.relayResizes(c) })
	loops.Go(func() { s.readInput(c) })

	exit, why := s.waitClient(ctx, c)
	close(c.over)
	if why != "" {
		// The server goes on: the model forgets the view.
		s.core.Send(ui.DetachMsg{ID: c.id})
		if why == "its terminal went away" && s.opts.HangupQuits {
			s.core.Send(ui.QuitMsg{})
		}
	}
	termErr := c.term.Close() // the last frame, then the modes undone
	finErr := st.Finish(exit)
	c.input.Close(st) // readInput's Read returns
	loops.Wait()
	s.release(c)
	if why == "" {
		why = "the server quit"
	}
	s.log(fmt.Sprintf("client %d detached: %s", c.id, why))
	return joinDistinct(termErr, finErr)
}

// joinDistinct joins errors, leaving out one that says what an earlier one
// said: a terminal gone makes the last frame's write and the exit's fail
// with the same broken pipe, which is one thing to log, not two.
func joinDistinct(errs ...error) error {
	var kept []error
	for _, err := range errs {
		if err == nil || slices.ContainsFunc(kept, func(k error) bool { return k.Error() == err.Error() }) {
			continue
		}
		kept = append(kept, err)
	}
	return errors.Join(kept...)
}

// waitClient waits for the client's end and says how it ended: why it
// detached, or "" when the server quit.
func (s *Server) waitClient(ctx context.Context, c *client) (attach.Exit, string) {
	select {
	case <-c.detach:
		return attach.Exit{Detached: true}, "it detached"
	case <-c.gone:
		return attach.Exit{Detached: true}, "its terminal went away"
	case <-ctx.Done():
		return attach.Exit{Detached: true}, "the server stopped serving it"
	case <-s.ended:
		s.mu.Lock()
		defer s.mu.Unlock()
		return *s.final, ""
	}
}

// admit registers a client, unless the server is quitting. The client's
// terminal is set up (its modes written) outside the server's mutex: a
// client that takes nothing holds up its own attach only, for at most its
// stream's write bound, never another attach, a detach or ctl ls.
func (s *Server) admit(st attach.Stream) (*client, error) {
	s.mu.Lock()
	if s.final != nil {
		s.mu.Unlock()
		return nil, errors.New("the server is quitting: start a new one with sandmux")
	}
	s.nextID++
	c := &client{id: s.nextID, st: st, gone: make(chan struct{}), detach: make(chan struct{}), over: make(chan struct{})}
	// Counted and listed before the mutex is let go, so that Run, once it
	// set final, waits for this client too, and can cut it off.
	s.attached.Add(1)
	s.clients[c.id] = c
	s.mu.Unlock()

	hello := st.Hello()
	t, err := term.Open(nil, colorsFor(hello, st))
	if err != nil {
		s.release(c)
		return nil, fmt.Errorf("set up the client's terminal: %w", err)
	}
	c.term = t
	c.input = newInputGuard(st, hello.ReadOnly)
	return c, nil
}

func (s *Server) release(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.mu.Unlock()
	s.attached.Done()
}

// relayResizes passes the terminal's new sizes on to its view.
func (s *Server) relayResizes(c *client) {
	for {
		select {
		case sz, ok := <-c.st.Resizes():
			if !ok {
				return
			}
			sz = c.fit(s, sz)
			s.core.Send(ui.ClientMsg{ID: c.id, Msg: tea.WindowSizeMsg{Width: sz.Width, Height: sz.Height}})
		case <-c.over:
			return
		}
	}
}

// fit brings a size the client's transport reported within termsize's
// bounds, whichever transport it came by (A10), and logs the first size
// it had to cut: a client resizing over and over logs once.
func (c *client) fit(s *Server, sz attach.Size) attach.Size {
	w, h, clamped := termsize.Clamp(sz.Width, sz.Height)
	if clamped && !c.clamped {
		c.clamped = true
		s.log(fmt.Sprintf("client %d: %s", c.id, termsize.Over(sz.Width, sz.Height)))
	}
	return attach.Size{Width: w, Height: h}
}

func readOnlyWord(ro bool) string {
	if ro {
		return ", read-only"
	}
	return ""
}

// readInput decodes the client's input and hands each message to the
// model's loop, tagged with the client, until the input ends (the
// terminal went away: gone) or Close stops the guard.
func (s *Server) readInput(c *client) {
	defer close(c.gone)
	var dec inputDecoder
	send := func(msg tea.Msg) { s.core.Send(ui.ClientMsg{ID: c.id, Msg: msg}) }
	buf := make([]byte, readSize)
	for {
		n, err := c.input.Read(buf)
		dec.decode(buf[:n], send)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.log(fmt.Sprintf("client %d: input: %v", c.id, err))
			}
			return
		}
	}
}

// colorsFor is where a client's frames are written: straight to its
// stream, or, for a terminal of 16 colours or fewer (as its TERM and
// COLORTERM say), through a writer that brings every colour down to what
// it shows. A 256-colour TERM is taken at its word only that far: many
// such terminals show RGB and lose COLORTERM over SSH, and sandmux
// passes colours as programs wrote them (TERMINAL.md).
func colorsFor(h attach.Hello, w io.Writer) io.Writer {
	p := colorprofile.Env([]string{"TERM=" + h.Term, "COLORTERM=" + h.ColorTerm})
	if p > colorprofile.ANSI {
		return w
	}
	return &colorprofile.Writer{Forward: w, Profile: max(p, colorprofile.ASCII)}
}
