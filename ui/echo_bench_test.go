package ui

import (
	"fmt"
	"io"
	"testing"

	"github.com/sandmux/sandmux/ui/term"
)

// benchModel is n panes on a 200×50 client that draws through a real
// Terminal (into io.Discard), the frame loop armed as it is between
// frames of a busy server.
func benchModel(b *testing.B, n int) *Model {
	b.Helper()
	m := newTestModel(b, newFakeBackend(), n, 200, 50)
	tm, err := term.Open(nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tm.Close() })
	drawTo(m, tm)
	m.Update(frameMsg{})
	return m
}

// BenchmarkEcho is the echo path: a key typed into the focused pane, its
// echo parsed, and the Update that notices drawing it between frames,
// beside 16 and 48 panes (it should cost the same).
func BenchmarkEcho(b *testing.B) {
	for _, n := range []int{16, 48} {
		b.Run(fmt.Sprintf("panes%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			p := m.Grid()[0]
			b.ReportAllocs()
			for b.Loop() {
				m.frameArmed = true // between two frames of the others
				press(m, "a")
				p.Screen().Write("a")
				m.Update(WakeMsg{Kind: WakeDirty})
			}
		})
	}
}

// BenchmarkFrame is one frame of 16 panes that all wrote a line, taken
// and composed for the client.
func BenchmarkFrame(b *testing.B) {
	m := benchModel(b, 16)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range m.Grid() {
			p.Screen().Write("some output of a busy pane\r\n")
		}
		m.Update(frameMsg{})
	}
}
