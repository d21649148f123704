package session

import (
	"context"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// pingSink tells of every text it is given.
type pingSink chan int

func (p pingSink) Output(text string) { p <- len(text) }

// BenchmarkSessionPacedReads measures a session's output path for the
// reads of a program redrawing a few lines at a time, each settled before
// the next comes (200 bytes, as agents.sh's panes write every 10 ms):
// from the PTY's Read to the sink, per read, wake-ups included. The
// window is off, as output paced 10 ms apart never fills one.
func BenchmarkSessionPacedReads(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[2;5Hcpu 12.5% ", 13)[:200])
	f := newFakePTY()
	m := managerWith(f)
	sink := make(pingSink)
	opts := Options{Sinks: []Sink{sink}, Window: -1}
	if _, err := m.Start(context.Background(), "fake", providers.Spec{Name: b.Name()}, opts); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for range b.N {
		f.output <- chunk
		for got := 0; got < len(chunk); {
			got += <-sink
		}
	}
	b.StopTimer()
	_ = m.Shutdown(context.Background())
	m.Wait()
}
