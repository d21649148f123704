package term

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestTerminalRenderWritesOnlyChangedLines(t *testing.T) {
	var tm Terminal
	first := string(tm.render(&drawing{lines: []string{"aaa", "bbb", "ccc"}, width: 3}))
	for _, want := range []string{"\x1b[2J", "\x1b[1;1Haaa", "\x1b[2;1Hbbb", "\x1b[3;1Hccc", "\x1b[?25l"} {
		if !strings.Contains(first, want) {
			t.Errorf("first frame %q lacks %q", first, want)
		}
	}
	second := string(tm.render(&drawing{lines: []string{"aaa", "BBB", "ccc"}, width: 3}))
	if strings.Contains(second, "aaa") || strings.Contains(second, "ccc") || !strings.Contains(second, "\x1b[2;1HBBB") || strings.Contains(second, "\x1b[2J") {
		t.Errorf("second frame %q, want only line 2 rewritten", second)
	}
	if b := tm.render(&drawing{lines: []string{"aaa", "BBB", "ccc"}, width: 3}); b != nil {
		t.Errorf("an unchanged frame without a cursor wrote %q", b)
	}
	cur := tea.NewCursor(1, 2)
	cur.Shape, cur.Blink = tea.CursorBar, false
	if got := string(tm.render(&drawing{lines: []string{"aaa", "BBB", "ccc"}, width: 3, cursor: cur})); !strings.HasSuffix(got, "\x1b[3;2H\x1b[6 q\x1b[?25h\x1b[?2026l") {
		t.Errorf("cursor frame = %q, want the cursor placed, shaped and shown last", got)
	}
	if b := tm.render(&drawing{lines: []string{"aaa", "BBB", "ccc"}, width: 3, cursor: cur}); b != nil {
		t.Errorf("an unchanged frame with the cursor where it was wrote %q", b)
	}
	moved := tea.NewCursor(2, 2)
	moved.Shape, moved.Blink = tea.CursorBar, false
	if got := string(tm.render(&drawing{lines: []string{"aaa", "BBB", "ccc"}, width: 3, cursor: moved})); !strings.Contains(got, "\x1b[3;3H") {
		t.Errorf("a moved cursor was not placed: %q", got)
	}
	if resized := string(tm.render(&drawing{lines: []string{"aaaa", "bbbb"}, width: 4})); !strings.Contains(resized, "\x1b[2J") || !strings.Contains(resized, "\x1b[2;1Hbbbb") {
		t.Errorf("a resize must redraw everything: %q", resized)
	}
}

// lockedBuffer is a bytes.Buffer safe for the drawing goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Opening sets the modes up; the newest frame is drawn; closing draws what
// is pending and undoes the modes, main screen last.
func TestTerminalOpenShowClose(t *testing.T) {
	var out lockedBuffer
	tm, err := Open(nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	tm.Show([]string{"old"}, nil, 3)
	tm.Show([]string{"new"}, nil, 3)
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.HasPrefix(s, enterModes) || !strings.HasSuffix(s, leaveModes) || !strings.Contains(s, "new") {
		t.Errorf("output = %q", s)
	}
}

// A cursor that goes away is hidden even when no line changed.
func TestTerminalHidesCursor(t *testing.T) {
	var tm Terminal
	lines := []string{"a", "b"}
	tm.render(&drawing{lines: lines, width: 1, cursor: tea.NewCursor(0, 0)})
	if got := string(tm.render(&drawing{lines: lines, width: 1})); !strings.Contains(got, "\x1b[?25l") {
		t.Errorf("frame without a cursor wrote %q, want the cursor hidden", got)
	}
}

// gatedWriter lets its first write through; each later one says it
// started (when the last saying was heard), then waits for release.
type gatedWriter struct {
	n       int
	started chan struct{}
	release chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	if g.n++; g.n > 1 {
		select {
		case g.started <- struct{}{}:
		default:
		}
		<-g.release
	}
	return len(p), nil
}

// A frame the same as the one handed last wakes nothing: the drawing
// goroutine would write nothing for it. One that differs is pending.
func TestTerminalSameFrameIsNotHandedAgain(t *testing.T) {
	g := &gatedWriter{started: make(chan struct{}, 1), release: make(chan struct{})}
	tm, err := Open(nil, g)
	if err != nil {
		t.Fatal(err)
	}
	cur := tea.NewCursor(1, 0)
	tm.Show([]string{"ab", "cd"}, cur, 2)
	<-g.started // drawing it, the frame no longer pending
	tm.Show([]string{"ab", "cd"}, tea.NewCursor(1, 0), 2)
	tm.mu.Lock()
	same := tm.pending
	tm.mu.Unlock()
	tm.Show([]string{"ab", "cD"}, tea.NewCursor(1, 0), 2)
	tm.mu.Lock()
	changed := tm.pending
	tm.mu.Unlock()
	close(g.release)
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	if same != nil {
		t.Errorf("the frame drawn, handed again, is pending: %+v", same)
	}
	if changed == nil || changed.lines[1] != "cD" {
		t.Errorf("a changed frame is not pending: %+v", changed)
	}
}
