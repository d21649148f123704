package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/termsize"
)

// logBook collects a server's log lines.
type logBook struct {
	mu    sync.Mutex
	lines []string
	grew  chan struct{}
}

func (l *logBook) log(v ...any) {
	l.mu.Lock()
	for _, x := range v {
		l.lines = append(l.lines, x.(string))
	}
	l.mu.Unlock()
	select {
	case l.grew <- struct{}{}:
	default:
	}
}

func (l *logBook) count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, part) {
			n++
		}
	}
	return n
}

func (l *logBook) waitFor(t *testing.T, part string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for l.count(part) == 0 {
		select {
		case <-l.grew:
		case <-deadline:
			t.Fatalf("no log line with %q: %q", part, l.lines)
		}
	}
}

// A size over termsize's bound, whichever transport it came by, is
// clamped before the UI sees it, and logged once per client.
func TestContract_A10_SizesClampedAndLogged(t *testing.T) {
	logs := &logBook{grew: make(chan struct{}, 1)}
	s, _ := runServerWith(t, Options{Size: attach.Size{Width: 100, Height: 30}, Log: logs.log}, "cat")
	st := newPipeStream(t, 100, 30, false)
	// Too wide only, so that the frames drawn meanwhile stay small.
	st.hello.Size = attach.Size{Width: 20000, Height: 30}
	attachClient(t, s, st)
	logs.waitFor(t, "terminal size 20000x30 is over the 1000x500 bound: it is drawn at 1000x30")
	st.resizes <- attach.Size{Width: 65535, Height: 30}
	st.resizes <- attach.Size{Width: 100, Height: 30}
	st.waitFor(t, "cat · local")
	st.typeText(t, "\x02d")
	st.waitExit(t)
	if n := logs.count("is over the"); n != 1 {
		t.Errorf("%d clamp lines for one client, want 1", n)
	}
	if w, h, _ := termsize.Clamp(20000, 9000); w != termsize.MaxWidth || h != termsize.MaxHeight {
		t.Errorf("Clamp = %dx%d", w, h)
	}
}

// blockingStream is a client whose terminal takes nothing until released.
type blockingStream struct {
	*pipeStream
	writing chan struct{} // closed at the first write
	once    sync.Once
	release chan struct{}
}

func (b *blockingStream) Write(p []byte) (int, error) {
	b.once.Do(func() { close(b.writing) })
	<-b.release
	return b.pipeStream.Write(p)
}

// A client that takes nothing holds up only itself: while its attach is
// stuck writing the terminal's modes, the server's mutex is free (Clients
// answers) and another client attaches.
func TestContract_A11_AdmitWritesOutsideTheLock(t *testing.T) {
	s, _ := runServer(t, "cat")
	stuck := &blockingStream{pipeStream: newPipeStream(t, 80, 24, false), writing: make(chan struct{}), release: make(chan struct{})}
	attachClient(t, s, stuck)
	defer close(stuck.release)
	select {
	case <-stuck.writing:
	case <-time.After(20 * time.Second):
		t.Fatal("the stuck client was never written to")
	}
	answered := make(chan int, 1)
	go func() { answered <- s.Clients() }() // Joined below, or the test failed.
	select {
	case <-answered:
	case <-time.After(20 * time.Second):
		t.Fatal("Clients waited on a client that takes nothing: the server's mutex is held over a write")
	}
	other := newPipeStream(t, 80, 24, false)
	attachClient(t, s, other)
	other.waitFor(t, "cat · local")
	other.typeText(t, "\x02d")
	other.waitExit(t)
}
