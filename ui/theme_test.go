package ui

import (
	"image/color"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
)

// chanWriter hands each write on to a channel.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) { w <- string(p); return len(p), nil }

// osc11 asks pane 0's screen for its background and returns the answer.
func osc11(t *testing.T, m *Model) string {
	t.Helper()
	w := make(chanWriter, 4)
	m.Grid()[0].Screen().ReplyTo(w)
	m.Grid()[0].Screen().Write("\x1b]11;?\x07")
	select {
	case s := <-w:
		return s
	case <-time.After(time.Minute):
		t.Fatal("no answer to OSC 11 in a minute")
		return ""
	}
}

// A pane's colour queries are answered with the colours of the client
// that typed last (the newest that may type before anyone did); a
// read-only client's never count.
func TestContract_A20_ThemeFollowsTheClientThatTyped(t *testing.T) {
	b := newFakeBackend()
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, b, []mux.PaneSpec{{Name: "a", Provider: "local"}})
	m.SetClock(fixedNow)
	_, starts := m.Update(StartMsg{Width: 80, Height: 24})
	for _, c := range drain(t, m, starts) {
		m.Update(c)
	}
	t.Cleanup(func() { m.Grid()[0].Screen().Close() })
	const dark, light = "\x1b]11;rgb:0000/0000/0000\x07", "\x1b]11;rgb:fafa/f0f0/e6e6\x07"
	if got := osc11(t, m); got != dark {
		t.Fatalf("before any client: %q, want the default %q", got, dark)
	}
	m.Update(AttachMsg{ID: 1, Width: 80, Height: 24})
	m.Update(ClientMsg{ID: 1, Msg: tea.BackgroundColorMsg{Color: color.RGBA{0x10, 0x20, 0x30, 0xff}}})
	if got, want := osc11(t, m), "\x1b]11;rgb:1010/2020/3030\x07"; got != want {
		t.Fatalf("one client: %q, want %q", got, want)
	}
	m.Update(AttachMsg{ID: 2, Width: 80, Height: 24})
	m.Update(ClientMsg{ID: 2, Msg: tea.BackgroundColorMsg{Color: color.RGBA{0xfa, 0xf0, 0xe6, 0xff}}})
	if got := osc11(t, m); got != light {
		t.Fatalf("the newest client: %q, want %q", got, light)
	}
	m.Update(AttachMsg{ID: 3, Width: 80, Height: 24, ReadOnly: true})
	m.Update(ClientMsg{ID: 3, Msg: tea.BackgroundColorMsg{Color: color.RGBA{0xff, 0, 0, 0xff}}})
	m.Update(ClientMsg{ID: 3, Msg: keyMsg("x")})
	if got := osc11(t, m); got != light {
		t.Fatalf("after a read-only client typed: %q, want %q", got, light)
	}
	m.Update(ClientMsg{ID: 1, Msg: keyMsg("x")})
	if got, want := osc11(t, m), "\x1b]11;rgb:1010/2020/3030\x07"; got != want {
		t.Fatalf("after client 1 typed: %q, want %q", got, want)
	}
	m.Update(DetachMsg{ID: 1})
	if got := osc11(t, m); got != light {
		t.Fatalf("after client 1 left: %q, want %q", got, light)
	}
}
