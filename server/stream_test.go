package server

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/session/vt"
)

// pipeStream is an attached terminal in memory: what the test types goes
// in through a pipe, and what the server draws is parsed by a real
// emulator, so the test reads the client's screen as a user would.
type pipeStream struct {
	hello   attach.Hello
	in      *io.PipeReader
	typer   *io.PipeWriter
	screen  *vt.Screen
	resizes chan attach.Size

	mu       sync.Mutex
	exit     *attach.Exit
	finished chan struct{}
}

func newPipeStream(t *testing.T, w, h int, readOnly bool) *pipeStream {
	r, wr := io.Pipe()
	s := &pipeStream{hello: attach.Hello{Size: attach.Size{Width: w, Height: h}, ReadOnly: readOnly, Term: "xterm-256color", Who: "test"},
		in: r, typer: wr, screen: vt.New(w, h), resizes: make(chan attach.Size, 4), finished: make(chan struct{})}
	t.Cleanup(s.screen.Close)
	return s
}

func (s *pipeStream) Read(p []byte) (int, error) { return s.in.Read(p) }
func (s *pipeStream) Write(p []byte) (int, error) {
	s.screen.Write(string(p))
	return len(p), nil
}
func (s *pipeStream) Hello() attach.Hello         { return s.hello }
func (s *pipeStream) Resizes() <-chan attach.Size { return s.resizes }
func (s *pipeStream) Finish(e attach.Exit) error {
	s.mu.Lock()
	s.exit = &e
	s.mu.Unlock()
	_ = s.in.CloseWithError(io.EOF)
	close(s.finished)
	return nil
}

func (s *pipeStream) typeText(t *testing.T, text string) {
	t.Helper()
	if _, err := io.WriteString(s.typer, text); err != nil {
		t.Fatalf("type %q: %v", text, err)
	}
}

// text is the client's screen as plain text.
func (s *pipeStream) text() string {
	var f vt.Frame
	s.screen.Snapshot(&f)
	var b []byte
	var lines []string
	for y := range f.Rows {
		b = vt.RenderRowText(b[:0], &f, y)
		lines = append(lines, string(b))
	}
	return strings.Join(lines, "\n")
}

// waitFor waits, by the screen's dirty signal, until the client's screen
// holds want; a bound keeps a broken server from hanging the test.
func (s *pipeStream) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.text(), want) {
		select {
		case <-s.screen.Dirty():
		case <-deadline:
			t.Fatalf("the client's screen never showed %q:\n%s", want, s.text())
		}
	}
}

func (s *pipeStream) waitExit(t *testing.T) attach.Exit {
	t.Helper()
	select {
	case <-s.finished:
	case <-time.After(20 * time.Second):
		t.Fatalf("the client was never finished; its screen:\n%s", s.text())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.exit
}
