package mux

import (
	"testing"

	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// A pane's session calls the function SetEchoParsed gave once its output
// parsed, but only while a key's echo is awaited in that pane: the rest
// of its output waits for the frame.
func TestEchoParsedOnlyWhileAwaited(t *testing.T) {
	b := newFakeBackend()
	v := &stubViews{size: providers.Size{Cols: 80, Rows: 24}, marked: map[*Pane]bool{}, notices: map[int]string{}}
	s := NewShared(t.Context(), Config{Scrollback: 100}, b, v, []PaneSpec{{Name: "apane", Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}}})
	s.SetClock(muxtest.FixedNow)
	calls := 0
	s.SetEchoParsed(func() { calls++ })
	update(s, s.StartAll()())
	p := s.Grid()[0]
	t.Cleanup(func() { s.StopWatching(); p.screen.Close() })
	b.Mu.Lock()
	parsed := b.Sessions[0].Opts.Parsed
	b.Mu.Unlock()
	if parsed == nil {
		t.Fatal("the pane's session was started without Parsed")
	}
	parsed()
	if calls != 0 {
		t.Errorf("output with no key typed called the echo's function %d times", calls)
	}
	s.Send(p, func(vt.Modes) []byte { return []byte("x") })
	parsed()
	if calls != 1 {
		t.Errorf("output after a key called the echo's function %d times, want once", calls)
	}
}
