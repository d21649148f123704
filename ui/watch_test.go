package ui

import (
	"io"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/ui/term"
)

// frameCell is the first character of pane i's first row as the local
// view last rendered it.
func frameCell(m *Model, i int) rune {
	s := m.lv().panes[m.Grid()[i].Key()]
	if s == nil {
		return 0 // never shown
	}
	row := ansi.Strip(string(s.row(0)))
	if row == "" {
		return 0
	}
	return []rune(row)[0]
}

// A key is answered first: with a frame tick pending, the echo in the
// pane typed into is taken in the Update that sees its screen change,
// while another pane's change waits for the tick; a key that changes
// nothing stops the watching after echoWait.
func TestEchoDrawnBetweenFrames(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 3, 160, 40)
	for _, p := range m.Grid() {
		m.lv().pv(p) // as composing the view makes them
	}
	m.frameArmed, m.lastFrame = true, m.Now() // a tick is pending
	press(m, "x")
	if !m.Grid()[0].Echoing() || m.Grid()[1].Echoing() {
		t.Fatalf("echo awaited: pane 1 %v, pane 2 %v; want only the focused pane", m.Grid()[0].Echoing(), m.Grid()[1].Echoing())
	}
	m.Grid()[0].Screen().Write("\x1b[HQ")
	m.Grid()[1].Screen().Write("\x1b[HW")
	_, cmd := m.Update(WakeMsg{Kind: WakeDirty})
	if got := frameCell(m, 0); got != 'Q' {
		t.Errorf("the focused pane's frame starts with %q, want its echo Q", got)
	}
	if got := frameCell(m, 1); got == 'W' {
		t.Error("a background pane was drawn before the pending tick")
	}
	if m.Grid()[0].Echoing() || cmd != nil && m.watching {
		t.Errorf("after the echo: still awaited %v, watching %v", m.Grid()[0].Echoing(), m.watching)
	}
	m.Update(frameMsg{})
	if got := frameCell(m, 1); got != 'W' {
		t.Errorf("after the tick the background pane starts with %q, want W", got)
	}

	m.frameArmed, m.lastFrame = true, m.Now()
	press(m, "z")
	if m.Update(WakeMsg{Kind: WakeDirty}); !m.watching {
		t.Error("no watch while an echo is awaited")
	}
	m.SetClock(func() time.Time { return fixedNow().Add(echoWait) })
	m.watching = false
	if _, cmd := m.Update(WakeMsg{Kind: WakeDirty}); cmd != nil || m.Grid()[0].Echoing() {
		t.Errorf("after echoWait: command %v, awaited %v; want the watching to stop", cmd != nil, m.Grid()[0].Echoing())
	}
}

// The frame budget: the wait after a frame grows with the panes it took,
// from the configured rate to at most minFPS.
func TestFrameBudget(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 1, 80, 24)
	m.opts.FPS = 60
	for _, c := range []struct {
		panes int
		want  time.Duration
	}{{0, time.Second / 60}, {4, time.Second / 60}, {48, 48 * framePaneCost}, {1000, time.Second / minFPS}} {
		m.framePanes = c.panes
		if got := m.frameInterval(); got != c.want {
			t.Errorf("after a frame of %d panes the next waits %v, want %v", c.panes, got, c.want)
		}
	}
}

// In the server's loop (WatchInLoop) a key typed into a pane arms no
// watch command: the loop waits on the channels Watched gives, and on
// none once the wake came and the echo was drawn.
func TestWatchInLoop(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 2, 160, 40)
	m.WatchInLoop(nil)
	// A tick is pending, and nothing watches until a key is typed.
	m.frameArmed, m.lastFrame, m.watching = true, m.Now(), false
	if wake, changed, stop := m.Watched(); wake != nil || changed != nil || stop != nil {
		t.Fatal("the loop is given signals to wait on before anything watches")
	}
	m.lv().pv(m.Grid()[0]) // as composing the view makes it
	press(m, "x")
	wake, changed, stop := m.Watched()
	if wake == nil || changed == nil || stop == nil {
		t.Fatalf("after a key the loop waits on wake %v, changed %v, stop %v; want all three", wake != nil, changed != nil, stop != nil)
	}
	m.Grid()[0].Screen().Write("\x1b[Hx")
	<-wake // as the loop receives it
	m.Update(WakeMsg{Kind: WakeDirty})
	if got := frameCell(m, 0); got != 'x' {
		t.Errorf("the focused pane's frame starts with %q, want its echo x", got)
	}
	if wake, _, _ := m.Watched(); wake != nil {
		t.Error("the loop still waits on the wake once the echo was drawn and a tick is pending")
	}
}

// nowTerminal takes every frame at once, as a terminal handed to the
// server does (term's nowWriter).
type nowTerminal struct{ bytes atomic.Int64 }

func (n *nowTerminal) Write(p []byte) (int, error) { return len(p), nil }

func (n *nowTerminal) WriteNow(p []byte) (int, bool) {
	n.bytes.Add(int64(len(p)))
	return len(p), true
}

// EchoWritten says whether the Update just run wrote a key's echo to a
// terminal itself (the server's loop steps aside after one): an echo on a
// terminal that takes it at once, not the frame after it, nor an echo
// left to a terminal's drawing goroutine.
func TestEchoWrittenSaysTheEchoWasWritten(t *testing.T) {
	for _, c := range []struct {
		name string
		out  io.Writer
		want bool
	}{{"written at once", &nowTerminal{}, true}, {"drawn by the goroutine", io.Discard, false}} {
		synctest.Test(t, func(t *testing.T) { echoWritten(t, c.name, c.out, c.want) })
	}
}

func echoWritten(t *testing.T, name string, out io.Writer, want bool) {
	m := newTestModel(t, newFakeBackend(), 2, 160, 40)
	tm, err := term.Open(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	drawTo(m, tm)
	m.Update(frameMsg{})
	m.frameArmed, m.lastFrame = true, m.Now() // a tick is pending
	synctest.Wait()                           // the first frames drawn: the drawing is free
	press(m, "x")
	if m.EchoWritten() {
		t.Errorf("%s: a key alone wrote an echo", name)
	}
	m.Grid()[0].Screen().Write("x")
	if m.Update(WakeMsg{Kind: WakeDirty}); m.EchoWritten() != want {
		t.Errorf("%s: after the echo's Update EchoWritten is %v, want %v", name, !want, want)
	}
	if n, ok := out.(*nowTerminal); ok && n.bytes.Load() == 0 {
		t.Errorf("%s: nothing was written at once", name)
	}
	m.Grid()[1].Screen().Write("y")
	if m.Update(frameMsg{}); m.EchoWritten() {
		t.Errorf("%s: the frame after the echo says it wrote one", name)
	}
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
}
