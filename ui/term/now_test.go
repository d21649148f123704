package term

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// nowBuffer is an output that takes at most room bytes a WriteNow (room
// < 0: all of them), as a terminal that fills does, and whose Write
// waits at gate while gate is set: the drawing goroutine's writes, held.
type nowBuffer struct {
	mu      sync.Mutex
	b       strings.Builder
	room    int
	nowHits int
	nowTook int           // bytes WriteNow took
	grew    chan struct{} // one slot: something was written
	gate    chan struct{}
	inWrite chan struct{}
}

func newNowBuffer(room int) *nowBuffer {
	return &nowBuffer{room: room, grew: make(chan struct{}, 1)}
}

func (n *nowBuffer) add(p []byte) {
	n.mu.Lock()
	n.b.Write(p)
	n.mu.Unlock()
	select {
	case n.grew <- struct{}{}:
	default:
	}
}

func (n *nowBuffer) WriteNow(p []byte) (int, bool) {
	if len(p) == 0 {
		return 0, true
	}
	n.mu.Lock()
	n.nowHits++
	k := len(p)
	if n.room >= 0 {
		k = min(k, n.room)
	}
	n.nowTook += k
	n.mu.Unlock()
	n.add(p[:k])
	return k, true
}

func (n *nowBuffer) Write(p []byte) (int, error) {
	n.mu.Lock()
	gate, inWrite := n.gate, n.inWrite
	n.mu.Unlock()
	if gate != nil {
		inWrite <- struct{}{}
		<-gate
	}
	n.add(p)
	return len(p), nil
}

func (n *nowBuffer) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.b.String()
}

func (n *nowBuffer) took() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nowTook
}

func (n *nowBuffer) hits() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nowHits
}

// waitLen waits until size bytes were written, within a bound.
func (n *nowBuffer) waitLen(t *testing.T, size int) {
	t.Helper()
	for len(n.String()) < size {
		select {
		case <-n.grew:
		case <-time.After(10 * time.Second):
			t.Fatalf("the terminal holds %d bytes, want %d: %q", len(n.String()), size, n.String())
		}
	}
}

// echoFrames are three frames a view hands over; the last shows the
// cursor. Each writes a line the next ones leave alone, so a lost byte
// shows.
var echoFrames = []drawing{
	{lines: []string{"one", "two", "six"}, width: 3},
	{lines: []string{"one", "TWO", "six"}, width: 3},
	{lines: []string{"ONE", "TWO", "six"}, width: 3, cursor: tea.NewCursor(1, 1)},
}

// TestShowNowDrawsInTheCaller: a frame with an echo is on the terminal
// when ShowNow returns, written by the caller rather than the drawing
// goroutine; and what a terminal that fills does not take at once, the
// goroutine writes next, so the terminal gets the same bytes in the same
// order, whoever wrote them. ShowNow says whether it wrote.
func TestShowNowDrawsInTheCaller(t *testing.T) {
	out := newNowBuffer(-1)
	tm := openOn(t, out)
	wrote := tm.ShowNow(echoFrames[0].lines, nil, nil, 3)
	if got := out.String(); !strings.HasSuffix(got, "\x1b[3;1Hsix\x1b[m\x1b[?2026l") || out.hits() != 1 || !wrote {
		t.Errorf("when ShowNow returned (wrote %v) the terminal held %q, written at once %d times; want the frame, written by ShowNow", wrote, got, out.hits())
	}
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}

	var ref Terminal
	var each []string
	for _, f := range echoFrames {
		each = append(each, string(ref.render(&f)))
	}
	for _, room := range []int{-1, 0, 1, 7, 40} {
		out := newNowBuffer(room)
		tm := openOn(t, out)
		want := enterModes
		for i, f := range echoFrames {
			// A sequence passed on goes before the frame, and so does
			// what the terminal did not take of it.
			seq := "\x1b]52;c;" + strings.Repeat("x", i*9) + "\a"
			tm.Passthrough(seq)
			took := out.took()
			if wrote := tm.ShowNow(f.lines, nil, f.cursor, f.width); wrote != (out.took() > took) {
				t.Errorf("taking %d bytes at once, frame %d: ShowNow said wrote %v, having written %d bytes", room, i, wrote, out.took()-took)
			}
			want += seq + each[i]
			out.waitLen(t, len(want))
		}
		if err := tm.Close(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != want+leaveModes {
			t.Errorf("taking %d bytes at once, the terminal got\n%q\nwant\n%q", room, got, want+leaveModes)
		}
		if out.hits() == 0 {
			t.Errorf("taking %d bytes at once, ShowNow never wrote itself", room)
		}
	}
}

// TestShowNowNeverWaitsForTheGoroutine: while the drawing goroutine is
// held in a write, ShowNow returns at once without writing and leaves
// its frame to the goroutine, which draws it next.
func TestShowNowNeverWaitsForTheGoroutine(t *testing.T) {
	out := newNowBuffer(-1)
	tm := openOn(t, out)
	out.mu.Lock()
	out.gate, out.inWrite = make(chan struct{}), make(chan struct{}, 8)
	out.mu.Unlock()
	tm.Show(echoFrames[0].lines, nil, 3)
	<-out.inWrite // the goroutine holds the drawing, waiting in Write
	returned := make(chan struct{})
	go func() {
		if tm.ShowNow(echoFrames[1].lines, nil, nil, 3) {
			t.Error("ShowNow said it wrote while the goroutine was drawing")
		}
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("ShowNow waited for the drawing goroutine's write")
	}
	if n := out.hits(); n != 0 {
		t.Errorf("ShowNow wrote %d times while the goroutine was drawing", n)
	}
	close(out.gate)
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "\x1b[2;1HTWO") {
		t.Errorf("the goroutine did not draw the frame ShowNow left to it: %q", got)
	}
}

// TestShowNowAfterCloseDrawsNothing: a frame handed after Close is not
// written past the modes Close undid.
func TestShowNowAfterCloseDrawsNothing(t *testing.T) {
	out := newNowBuffer(-1)
	tm := openOn(t, out)
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	if tm.ShowNow(echoFrames[0].lines, nil, nil, 3) {
		t.Error("ShowNow said it wrote after Close")
	}
	if got := out.String(); !strings.HasSuffix(got, leaveModes) {
		t.Errorf("after Close, ShowNow wrote %q past the modes undone", got[strings.LastIndex(got, leaveModes)+len(leaveModes):])
	}
}

// openOn opens a Terminal that reads nothing and draws on out.
func openOn(t *testing.T, out io.Writer) *Terminal {
	t.Helper()
	tm, err := Open(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
