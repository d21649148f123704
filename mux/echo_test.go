package mux

import (
	"testing"

	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// onePane is the shared side of one pane, apane, not started yet.
func onePane(t *testing.T, b *fakeBackend) *Shared {
	s := NewShared(t.Context(), Config{Scrollback: 100}, b, newStubViews(), []PaneSpec{{Name: "apane", Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}}})
	s.SetClock(muxtest.FixedNow)
	return s
}

// Output parsed while a key's echo is awaited does not poke the model's
// wake: its session's Parsed hands it to the function SetEchoParsed gave,
// and pokes only when that could not deliver it. Output parsed with no
// key typed pokes as ever, and Parsed calls nothing.
func TestEchoParsedDeliversTheWake(t *testing.T) {
	b := newFakeBackend()
	s := onePane(t, b)
	calls, delivers := 0, true
	s.SetEchoParsed(func() bool { calls++; return delivers })
	update(s, s.StartAll()())
	p := s.Grid()[0]
	t.Cleanup(func() { s.StopWatching(); p.screen.Close() })
	b.Mu.Lock()
	parsed := b.Sessions[0].Opts.Parsed
	b.Mu.Unlock()
	if parsed == nil {
		t.Fatal("the pane's session was started without Parsed")
	}
	drain := func() bool {
		select {
		case <-s.Wake():
			return true
		default:
			return false
		}
	}
	drain()
	p.screen.Write("out")
	parsed()
	if poked := drain(); calls != 0 || !poked {
		t.Errorf("output with no key typed: the echo's function called %d times, the wake poked %v; want none, poked", calls, poked)
	}
	for _, d := range []bool{true, false} {
		delivers = d
		s.Send(p, func(vt.Modes) []byte { return []byte("x") })
		p.screen.Write("x")
		if drain() {
			t.Fatal("output after a key poked the wake before the parser was done")
		}
		calls = 0
		parsed()
		if poked := drain(); calls != 1 || poked == d {
			t.Errorf("after a key, delivered %v: the echo's function called %d times, the wake poked %v; want once, poked only if not delivered", d, calls, poked)
		}
	}
}

// A key's echo is awaited before the key is written: a child that
// echoes before Send returns (on the other core, as its reader parses
// it) finds its pane echoing, so the parse goes past the gate and the
// redraw loop draws it at once.
func TestEchoAwaitedBeforeTheKeyIsWritten(t *testing.T) {
	b := newFakeBackend()
	s := onePane(t, b)
	update(s, s.StartAll()())
	p := s.Grid()[0]
	t.Cleanup(func() { s.StopWatching(); p.screen.Close() })
	b.Mu.Lock()
	sess := b.Sessions[0]
	b.Mu.Unlock()
	var awaited []bool
	sess.OnWrite = func([]byte) { awaited = append(awaited, p.Echoing()) }
	s.Send(p, func(vt.Modes) []byte { return []byte("x") })
	if len(awaited) != 1 || !awaited[0] {
		t.Errorf("the pane was echoing %v as its key was written, want [true]", awaited)
	}
}

// A pane's first output parsed and framed before the model learned of
// its session (the frame could not ask the session when it wrote) is
// activity all the same once it does: a shell that printed its prompt
// and went quiet is not left at "no output yet" for good.
func TestOutputFramedBeforeTheStartCounts(t *testing.T) {
	b := newFakeBackend()
	b.Output["apane"] = "$ "
	s := onePane(t, b)
	started := s.StartAll()() // the session runs and prints its prompt
	p := s.Grid()[0]
	t.Cleanup(func() { s.StopWatching(); p.screen.Close() })
	frame(s) // before the model knows the session
	update(s, started)
	if st := p.State(); st.Reason == "no output yet" {
		t.Errorf("the prompt printed before the start was known left the pane %s: %s", st.State, st.Reason)
	}
}
