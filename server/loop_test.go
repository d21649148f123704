package server

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/ui"
)

// loopModel is a model for the loop's tests: it hands every message it
// gets to got, runs what update returns for it, and watches wake while
// watching is set.
type loopModel struct {
	got      chan tea.Msg
	update   func(tea.Msg) tea.Cmd
	watching bool
	wake     chan struct{}
}

func newLoopModel() *loopModel {
	return &loopModel{got: make(chan tea.Msg, 16), wake: make(chan struct{}, 1)}
}

func (m *loopModel) Init() tea.Cmd  { return nil }
func (m *loopModel) View() tea.View { return tea.View{} }
func (m *loopModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.got <- msg
	if m.update != nil {
		return m, m.update(msg)
	}
	return m, nil
}

func (m *loopModel) Watched() (wake, changed, stop <-chan struct{}) {
	if !m.watching {
		return nil, nil, nil
	}
	return m.wake, nil, nil
}

type (
	askMsg   struct{ n int }
	replyMsg struct{ n int }
)

// runLoop runs l and returns what run returned, once it did.
func runLoop(l *loop) <-chan error {
	done := make(chan error, 1)
	go func() { done <- l.run() }() // Joined by the caller's receive.
	return done
}

// A message sent is handled before Send returns; a command's message comes
// back to the model, a batch's each from a goroutine of its own (one of
// them waits for the other: had the batch run its commands one by one,
// the first would wait for ever), and the quit ends the run; a Send after
// it returns at once, delivering nothing.
func TestLoopRunsCommandsAndQuits(t *testing.T) {
	m := newLoopModel()
	release := make(chan struct{})
	m.update = func(msg tea.Msg) tea.Cmd {
		if msg, ok := msg.(askMsg); ok {
			return tea.Batch(
				func() tea.Msg { <-release; return replyMsg(msg) },
				func() tea.Msg { close(release); return replyMsg{msg.n + 1} },
			)
		}
		return nil
	}
	l := newLoop(m, nil)
	done := runLoop(l)
	l.Send(askMsg{1})
	select {
	case msg := <-m.got:
		if msg != (askMsg{1}) {
			t.Fatalf("the model got %#v first, want the message sent", msg)
		}
	default:
		t.Fatal("Send returned before the model had the message")
	}
	seen := map[tea.Msg]bool{<-m.got: true, <-m.got: true}
	if !seen[replyMsg{1}] || !seen[replyMsg{2}] {
		t.Errorf("the batch's messages came back as %v", seen)
	}
	l.Send(tea.QuitMsg{})
	if err := <-done; err != nil {
		t.Errorf("the quit ended the run with %v", err)
	}
	l.Send(askMsg{2}) // returns: the loop ended
	select {
	case msg := <-m.got:
		t.Errorf("the model got %#v after the quit", msg)
	default:
	}
}

// The loop waits on the redraw loop's signal itself while the model
// watches (a WakeMsg, with no command between), and leaves it pending
// while it does not.
func TestLoopWaitsOnTheWatchedSignal(t *testing.T) {
	m := newLoopModel()
	m.update = func(msg tea.Msg) tea.Cmd {
		if _, ok := msg.(askMsg); ok {
			m.watching = true
		}
		if _, ok := msg.(ui.WakeMsg); ok {
			m.watching = false
		}
		return nil
	}
	l := newLoop(m, nil)
	done := runLoop(l)
	m.wake <- struct{}{} // not watched yet: stays in its slot
	l.Send(replyMsg{})
	if msg := <-m.got; msg != (replyMsg{}) {
		t.Fatalf("the model got %#v while it watched nothing, want the message sent", msg)
	}
	l.Send(askMsg{})
	<-m.got
	if msg := <-m.got; msg != (ui.WakeMsg{Kind: ui.WakeDirty}) {
		t.Errorf("once watching, the model got %#v, want the wake", msg)
	}
	l.Send(tea.QuitMsg{})
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// A panic in the model or in a command ends the run with an error that
// says so and holds the stack; the filter sees every message first and
// drops those it returns nil for.
func TestLoopPanicEndsTheRun(t *testing.T) {
	for _, where := range []string{"update", "command"} {
		t.Run(where, func(t *testing.T) {
			m := newLoopModel()
			m.update = func(msg tea.Msg) tea.Cmd {
				if _, ok := msg.(askMsg); !ok {
					return nil
				}
				if where == "update" {
					panic("boom in " + where)
				}
				return func() tea.Msg { panic("boom in " + where) }
			}
			drop := func(_ tea.Model, msg tea.Msg) tea.Msg {
				if _, ok := msg.(replyMsg); ok {
					return nil
				}
				return msg
			}
			l := newLoop(m, drop)
			done := runLoop(l)
			l.Send(replyMsg{})
			l.Send(askMsg{})
			if msg := <-m.got; msg != (askMsg{}) {
				t.Errorf("the model got %#v first, want the filter to drop it", msg)
			}
			err := <-done
			if !errors.Is(err, errPanicked) || !strings.Contains(err.Error(), "boom in "+where) || !strings.Contains(err.Error(), "loop_test.go") {
				t.Errorf("the run ended with %v, want the panic and its stack", err)
			}
		})
	}
}

// TryWake, from the goroutine that parsed an awaited echo, delivers the
// wake there and then when the model is free and watches (taking a poke
// of another screen's with it) and says so; it delivers nothing and says
// so while the model is busy with another message or does not watch, and
// its caller pokes the wake for run.
func TestLoopTryWake(t *testing.T) {
	m := newLoopModel()
	busy, free := make(chan struct{}), make(chan struct{})
	m.update = func(msg tea.Msg) tea.Cmd {
		switch msg.(type) {
		case askMsg:
			m.watching = true
		case replyMsg:
			close(busy)
			<-free
		case ui.WakeMsg:
			m.watching = false
		}
		return nil
	}
	l := newLoop(m, nil)
	if l.TryWake() || len(m.got) != 0 {
		t.Fatal("TryWake delivered while the model watched nothing")
	}
	l.Send(askMsg{})
	<-m.got
	m.wake <- struct{}{} // another screen's poke
	if !l.TryWake() {
		t.Fatal("TryWake delivered nothing while the model was free and watched")
	}
	if msg := <-m.got; msg != (ui.WakeMsg{Kind: ui.WakeDirty}) || len(m.wake) != 0 {
		t.Errorf("TryWake delivered %#v (a poke left: %v), want the wake, the poke taken", msg, len(m.wake) == 1)
	}

	l.Send(askMsg{})
	<-m.got
	go l.Send(replyMsg{}) // Joined: free is closed below and the model takes it.
	<-busy
	if l.TryWake() {
		t.Error("TryWake delivered while the model was busy")
	}
	m.wake <- struct{}{} // as its caller pokes
	close(free)
	<-m.got // the reply
	done := runLoop(l)
	if msg := <-m.got; msg != (ui.WakeMsg{Kind: ui.WakeDirty}) {
		t.Errorf("run delivered %#v, want the poked wake", msg)
	}
	l.Send(tea.QuitMsg{})
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// goid is the calling goroutine's number, read from its stack's header.
func goid() string {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	return strings.Fields(string(b[:n]))[1] // "goroutine N [running]:"
}

// A command runs on a worker that waited for one, when one does: a
// frame's tick after another's (each frame drawn on the goroutine that
// delivers it) does not start a goroutine, whose stack grew from the
// smallest again. The workers leave once the model ended.
func TestLoopCommandsReuseTheirWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newLoopModel()
		ran := make(chan string, 1)
		m.update = func(msg tea.Msg) tea.Cmd {
			if msg, ok := msg.(askMsg); ok {
				return func() tea.Msg { ran <- goid(); return replyMsg(msg) }
			}
			return nil
		}
		l := newLoop(m, nil)
		done := runLoop(l)
		seen := map[string]bool{}
		for i := range 10 {
			l.Send(askMsg{i})
			<-m.got
			seen[<-ran] = true
			<-m.got
			synctest.Wait() // the worker waits for the next command
		}
		if len(seen) != 1 {
			t.Errorf("ten commands one after another ran on %d goroutines, want one", len(seen))
		}
		l.Send(tea.QuitMsg{})
		if err := <-done; err != nil {
			t.Error(err)
		}
		synctest.Wait()
		if n := l.idle.Load(); n != 0 {
			t.Errorf("%d workers still wait after the end", n)
		}
	})
}

// echoModel is a loopModel that says it wrote an echo after each
// message its update marked so (ui.Model's EchoWritten).
type echoModel struct {
	*loopModel
	written bool
}

func (m *echoModel) EchoWritten() bool { return m.written }

// An Update that wrote a key's echo itself is followed by a yield of the
// thread that delivered it, once the model is free, whoever delivered
// it (Send, TryWake, run); any other Update by none.
func TestLoopYieldsAfterAnEchoWritten(t *testing.T) {
	m := &echoModel{loopModel: newLoopModel()}
	m.update = func(msg tea.Msg) tea.Cmd {
		m.written = false
		switch msg.(type) {
		case askMsg:
			m.watching = true
		case ui.WakeMsg:
			m.written, m.watching = true, false
		}
		return nil
	}
	l := newLoop(m, nil)
	yielded := make(chan bool, 8) // each yield: whether the model was free
	yieldThread = func() {
		free := l.mu.TryLock()
		if free {
			l.mu.Unlock()
		}
		yielded <- free
	}
	t.Cleanup(func() { yieldThread = schedYield })
	expect := func(by string) {
		t.Helper()
		select {
		case free := <-yielded:
			if !free {
				t.Errorf("after %s, the thread yielded with the model held", by)
			}
		default:
			t.Errorf("no yield after %s delivered an echo written", by)
		}
	}

	l.Send(askMsg{})
	<-m.got
	if len(yielded) != 0 {
		t.Error("a yield after an Update that wrote no echo")
	}
	if !l.TryWake() {
		t.Fatal("TryWake delivered nothing while the model was free and watched")
	}
	<-m.got
	expect("TryWake")
	l.Send(ui.WakeMsg{Kind: ui.WakeDirty})
	<-m.got
	expect("Send")
	l.Send(askMsg{})
	<-m.got
	done := runLoop(l)
	m.wake <- struct{}{}
	<-m.got
	select { // run's, once it let the model go
	case free := <-yielded:
		if !free {
			t.Error("after run, the thread yielded with the model held")
		}
	case <-time.After(10 * time.Second):
		t.Error("no yield after run delivered an echo written")
	}
	l.Send(tea.QuitMsg{})
	if err := <-done; err != nil {
		t.Error(err)
	}
	if len(yielded) != 0 {
		t.Errorf("%d yields more than the echoes written", len(yielded))
	}
}

// deferModel is an echoModel with a message put off after each Update
// its update marked so (ui.Model's TakeDeferred).
type deferModel struct {
	*echoModel
	later tea.Msg
}

func (m *deferModel) TakeDeferred() tea.Msg {
	msg := m.later
	m.later = nil
	return msg
}

// What the model puts off is delivered once it is free and the thread
// that drew an echo stepped aside, on the same goroutine (no hand-off),
// before Send returns.
func TestLoopDeliversTheDeferredAfterTheYield(t *testing.T) {
	m := &deferModel{echoModel: &echoModel{loopModel: newLoopModel()}}
	var order []string
	m.update = func(msg tea.Msg) tea.Cmd {
		m.written = false
		switch msg.(type) {
		case askMsg:
			m.written, m.later = true, replyMsg{}
			order = append(order, "ask "+goid())
		case replyMsg:
			order = append(order, "reply "+goid())
		}
		return nil
	}
	l := newLoop(m, nil)
	yieldThread = func() {
		if l.mu.TryLock() {
			l.mu.Unlock()
			order = append(order, "yield")
		}
	}
	t.Cleanup(func() { yieldThread = schedYield })
	l.Send(askMsg{})
	if len(order) != 3 || order[1] != "yield" || order[0][4:] != order[2][6:] || !strings.HasPrefix(order[2], "reply ") {
		t.Fatalf("Send delivered %q; want the ask, a yield, then the reply on the same goroutine", order)
	}
	<-m.got
	<-m.got
}
