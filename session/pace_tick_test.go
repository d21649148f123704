package session

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// nowPTY is a fake PTY that can also be read without waiting, as a local
// one can: ReadNow takes what the child is writing now (a send on output
// that waits), else nothing. It counts the reads that could wait.
type nowPTY struct {
	*fakePTY
	reads atomic.Int32
}

func (p *nowPTY) Read(b []byte) (int, error) {
	p.reads.Add(1)
	return p.fakePTY.Read(b)
}

func (p *nowPTY) ReadNow(b []byte) (int, error) {
	if n, ok := p.takePending(b); ok {
		return n, nil
	}
	select {
	case out := <-p.output:
		return p.took(b, out), nil
	default:
		return 0, nil
	}
}

// tickPacer hands each PaceWith's poll to the test, which plays the
// ticks, then holds the reader as heldPacer does.
type tickPacer struct {
	heldPacer
	polls chan func() bool
}

func (p *tickPacer) PaceWith(done <-chan struct{}, poll func() bool) {
	p.polls <- poll
	p.Pace(done)
}

// TestContract_O9_PacedReadsTakenOnTheTick: a PTY that can be read
// without waiting is read by its pacer's tick while the reader stays
// parked: each tick's read is delivered in order, and the reader reads
// again itself only once a tick found nothing, or read too much to
// deliver there (which the reader then hands to the consumer, in order).
func TestContract_O9_PacedReadsTakenOnTheTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &nowPTY{fakePTY: newFakePTY()}
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) { return f, nil }}})
		sink := &textSink{}
		pacer := &tickPacer{heldPacer: heldPacer{waits: make(chan struct{}, 100), go_: make(chan struct{}, 100)}, polls: make(chan func() bool, 1)}
		opts := testOpts
		opts.Sinks, opts.Pacer = []Sink{sink}, pacer
		start(t, m, opts)
		write := func(s string) { go func() { f.output <- []byte(s) }(); synctest.Wait() }

		write("ab")
		poll := <-pacer.polls
		reads := f.reads.Load()
		write("cd")
		if !poll() {
			t.Fatal("a tick that read a little ended the pacing")
		}
		write("ef")
		if !poll() {
			t.Fatal("the second tick ended the pacing")
		}
		if got := sink.String(); got != "abcdef" {
			t.Fatalf("delivered %q after two ticks, want %q", got, "abcdef")
		}
		if n := f.reads.Load(); n != reads {
			t.Fatalf("the reader read %d times while the ticks read for it", n-reads)
		}
		if poll() {
			t.Fatal("a tick that found nothing kept the pacing")
		}
		pacer.go_ <- struct{}{} // the pacer resumes the reader
		write("gh")
		if n := f.reads.Load(); n <= reads {
			t.Fatal("the reader did not read again itself after a tick found nothing")
		}
		poll = <-pacer.polls
		big := strings.Repeat("x", handOff)
		write(big)
		if poll() {
			t.Fatal("a tick that read a flood's worth kept the pacing")
		}
		pacer.go_ <- struct{}{}
		passWindow()
		if got := sink.String(); got != "abcdefgh"+big {
			t.Errorf("delivered %d bytes, want %d in order", len(got), 8+len(big))
		}
		shutdownAll(t, m)
		time.Sleep(time.Second)
	})
}
