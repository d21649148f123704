package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/ui"
)

// client is one attached terminal: its stream, the Terminal that draws
// its view, and the Bubble Tea program that decodes its input.
type client struct {
	id   int
	st   attach.Stream
	term *ui.Terminal
	prog *tea.Program
	// gone is closed when the terminal went away (its input ended);
	// detach when the client asked to leave (prefix d).
	gone, detach chan struct{}
	// over is closed once the attachment ended, whatever ended it: the
	// resize relay stops then (a stream need not close its Resizes).
	over       chan struct{}
	detachOnce sync.Once
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
	var loops sync.WaitGroup
	loops.Go(func() {
		if _, err := c.prog.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			s.log(fmt.Sprintf("client %d: input: %v", c.id, err))
		}
	})
	loops.Go(func() { s.relayResizes(c) })
	s.core.Send(ui.AttachMsg{ID: c.id, Term: c.term, Width: hello.Size.Width, Height: hello.Size.Height,
		ReadOnly: hello.ReadOnly, Dir: hello.Dir, Detached: func() { c.detachOnce.Do(func() { close(c.detach) }) }})

	exit, why := s.waitClient(ctx, c)
	close(c.over)
	if why != "" {
		// The server goes on: the model forgets the view.
		s.core.Send(ui.DetachMsg{ID: c.id})
		if why == "its terminal went away" && s.opts.HangupQuits {
			s.core.Send(ui.QuitMsg{})
		}
	}
	c.prog.Quit()
	termErr := c.term.Close() // the last frame, then the modes undone
	finErr := st.Finish(exit)
	loops.Wait()
	s.release(c)
	if why == "" {
		why = "the server quit"
	}
	s.log(fmt.Sprintf("client %d detached: %s", c.id, why))
	return errors.Join(termErr, finErr)
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

// admit registers a client, unless the server is quitting.
func (s *Server) admit(st attach.Stream) (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.final != nil {
		return nil, errors.New("the server is quitting: start a new one with sandmux")
	}
	s.nextID++
	c := &client{id: s.nextID, st: st, gone: make(chan struct{}), detach: make(chan struct{}), over: make(chan struct{})}
	hello := st.Hello()
	term, err := ui.OpenTerminal(nil, colorsFor(hello, st))
	if err != nil {
		return nil, fmt.Errorf("set up the client's terminal: %w", err)
	}
	c.term = term
	in := &watchedReader{r: st, gone: c.gone}
	c.prog = tea.NewProgram(forwarder{id: c.id, core: s.core}, tea.WithInput(in), tea.WithOutput(io.Discard),
		tea.WithoutRenderer(), tea.WithoutSignalHandler(), tea.WithFPS(1),
		tea.WithWindowSize(hello.Size.Width, hello.Size.Height), tea.WithEnvironment([]string{"TERM=" + hello.Term}))
	s.clients[c.id] = c
	s.attached.Add(1)
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
			s.core.Send(ui.ClientMsg{ID: c.id, Msg: tea.WindowSizeMsg{Width: sz.Width, Height: sz.Height}})
		case <-c.over:
			return
		}
	}
}

func readOnlyWord(ro bool) string {
	if ro {
		return ", read-only"
	}
	return ""
}

// forwarder is a client's Bubble Tea model: it decodes nothing itself
// (the program does) and hands every input message to the model's loop,
// tagged with the client.
type forwarder struct {
	id   int
	core *tea.Program
}

func (f forwarder) Init() tea.Cmd { return nil }

func (f forwarder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.MouseMsg, tea.FocusMsg, tea.BlurMsg:
		f.core.Send(ui.ClientMsg{ID: f.id, Msg: msg})
	}
	return f, nil
}

func (f forwarder) View() tea.View { return tea.View{} }

// watchedReader closes gone when its reader fails: the terminal went away.
type watchedReader struct {
	r    io.Reader
	gone chan struct{}
	once sync.Once
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil {
		w.once.Do(func() { close(w.gone) })
	}
	return n, err
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
