package server

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/ui"
)

// runServer runs a server of one local pane per command, over a real
// Manager and real PTYs, and stops it (killing everything) at cleanup.
func runServer(t *testing.T, cmds ...string) (*Server, *ui.Model) {
	t.Helper()
	return runServerWith(t, Options{Size: attach.Size{Width: 100, Height: 30}}, cmds...)
}

func runServerWith(t *testing.T, opts Options, cmds ...string) (*Server, *ui.Model) {
	t.Helper()
	mgr := session.NewManager(providers.Table{"local": local.New("/bin/sh")})
	var specs []ui.PaneSpec
	for _, c := range cmds {
		specs = append(specs, ui.PaneSpec{Name: c, Provider: "local", Spec: providers.Spec{Command: []string{"sh", "-c", c}}})
	}
	model := ui.New(t.Context(), ui.Config{Prefix: "ctrl+b", FPS: 60}, ui.FromManager(mgr), specs)
	s := New(model, opts)
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = s.Run(func(runErr error) attach.Exit {
			var b strings.Builder
			for _, r := range model.Results() {
				fmt.Fprintln(&b, r)
			}
			return attach.Exit{Code: 0, Summary: b.String()}
		})
	})
	t.Cleanup(func() {
		s.Send(ui.QuitMsg{Kill: true})
		wg.Wait()
		_ = mgr.Shutdown(context.Background())
		mgr.Wait()
	})
	return s, model
}

func attachClient(t *testing.T, s *Server, st attach.Stream) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Attach(t.Context(), st) })
	t.Cleanup(wg.Wait)
	return &wg
}

// Two clients of different sizes share one pane: what one types shows in
// both; one detaches and the pane runs on; a quit from the other ends
// both with the summary.
func TestContract_A3_TwoClientsShareAPane(t *testing.T) {
	s, _ := runServer(t, "cat")
	a := newPipeStream(t, 100, 30, false)
	b := newPipeStream(t, 60, 20, false)
	attachClient(t, s, a)
	a.waitFor(t, "cat · local · idle")
	attachClient(t, s, b)
	b.waitFor(t, "cat · local · idle")

	a.typeText(t, "hello from a\r")
	a.waitFor(t, "hello from a")
	b.waitFor(t, "hello from a")

	b.typeText(t, "\x02d") // prefix d
	if e := b.waitExit(t); !e.Detached {
		t.Fatalf("prefix d ended the client with %+v, want detached", e)
	}
	a.typeText(t, "still here\r")
	a.waitFor(t, "still here")

	a.typeText(t, "\x02q")
	a.waitFor(t, "Quit and tear them all down?")
	a.typeText(t, "y")
	e := a.waitExit(t)
	if e.Detached || !strings.Contains(e.Summary, "cat: ") {
		t.Fatalf("the quit ended the client with %+v, want the summary", e)
	}
}

// A read-only client sees the pane but its keys never reach it, and it
// cannot quit.
func TestContract_A2_ReadOnlyClientCannotType(t *testing.T) {
	s, _ := runServer(t, "cat")
	rw := newPipeStream(t, 80, 24, false)
	ro := newPipeStream(t, 80, 24, true)
	attachClient(t, s, rw)
	attachClient(t, s, ro)
	ro.waitFor(t, "READ-ONLY")
	ro.typeText(t, "secret\r")
	ro.typeText(t, "\x02q")
	ro.waitFor(t, "read-only")
	rw.typeText(t, "visible\r")
	ro.waitFor(t, "visible")
	if strings.Contains(rw.text(), "secret") {
		t.Fatalf("a read-only client's keys reached the pane:\n%s", rw.text())
	}
	ro.typeText(t, "\x02d")
	if e := ro.waitExit(t); !e.Detached {
		t.Fatalf("read-only detach ended with %+v", e)
	}
}

// A client whose terminal goes away only detaches; with on_hangup =
// "quit" (HangupQuits) it quits the server, as sandmux did before servers.
func TestHangupDetachesOrQuits(t *testing.T) {
	for _, quits := range []bool{false, true} {
		t.Run(fmt.Sprint("quits=", quits), func(t *testing.T) {
			s, _ := runServerWith(t, Options{Size: attach.Size{Width: 80, Height: 24}, HangupQuits: quits}, "cat")
			c := newPipeStream(t, 80, 24, false)
			attachClient(t, s, c)
			c.waitFor(t, "cat · local · idle")
			_ = c.typer.Close() // the terminal goes away
			if e := c.waitExit(t); !e.Detached {
				t.Fatalf("a hung-up client ended with %+v, want detached", e)
			}
			if !quits {
				other := newPipeStream(t, 80, 24, false)
				attachClient(t, s, other)
				other.waitFor(t, "cat · local · idle")
				return
			}
			select {
			case <-s.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("on_hangup = quit: the server did not quit after the hangup")
			}
		})
	}
}

// A client whose terminal shows 16 colours or fewer gets its colours
// brought down to those; one whose TERM says 256 colours gets them as
// the program wrote them (many show RGB and lose COLORTERM over SSH).
func TestClientColoursFollowItsTerminal(t *testing.T) {
	s, _ := runServer(t, `printf '\033[38;2;10;200;30m\107REEN\033[m\n'; exec cat`) // \107: G, so the title (the command) never shows GREEN
	raw := map[string]*rawStream{}
	for _, term := range []string{"xterm", "xterm-256color"} {
		c := newPipeStream(t, 80, 24, false)
		c.hello.Term = term
		r := &rawStream{pipeStream: c}
		raw[term] = r
		attachClient(t, s, r)
		c.waitFor(t, "GREEN")
	}
	// The pane's title quotes the command: look for the colour in an SGR.
	rgb := regexp.MustCompile(`\x1b\[[0-9;:]*38[;:]2[;:]+10[;:]200[;:]30m`)
	if rgb.MatchString(raw["xterm"].bytes()) {
		t.Errorf("a 16-colour terminal got an RGB colour")
	}
	if !rgb.MatchString(raw["xterm-256color"].bytes()) {
		t.Errorf("a 256-colour terminal did not get the colour as written")
	}
}

// rawStream keeps what the server wrote, beside parsing it.
type rawStream struct {
	*pipeStream
	mu  sync.Mutex
	out []byte
}

func (r *rawStream) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.out = append(r.out, p...)
	r.mu.Unlock()
	return r.pipeStream.Write(p)
}

func (r *rawStream) bytes() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.out)
}

// stuckStream is a terminal whose input never ends, even once finished,
// and whose Resizes never close: what a stream owes the server is only
// Finish.
type stuckStream struct {
	*pipeStream
	release chan struct{}
}

func (s *stuckStream) Read([]byte) (int, error) {
	<-s.release
	return 0, io.EOF
}

// An attachment ended by its context returns, whatever its stream does
// with its input and its Resizes.
func TestAttachEndsWithItsContext(t *testing.T) {
	s, _ := runServer(t, "cat")
	st := &stuckStream{pipeStream: newPipeStream(t, 80, 24, false), release: make(chan struct{})}
	defer close(st.release)
	ctx, cancel := context.WithCancel(t.Context())
	returned := make(chan error, 1)
	go func() { returned <- s.Attach(ctx, st) }()
	st.waitFor(t, "cat · local · idle")
	cancel()
	select {
	case <-returned:
	case <-time.After(20 * time.Second):
		t.Fatal("Attach did not return once its context ended")
	}
	if e := st.waitExit(t); !e.Detached {
		t.Errorf("the attachment ended with %+v, want detached", e)
	}
}
