package session

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// heldPacer holds the reader in Pace until the test lets it go, and
// counts the waits.
type heldPacer struct {
	waits chan struct{} // one element per Pace begun
	go_   chan struct{} // one element lets one Pace return
}

func (p *heldPacer) Pace(done <-chan struct{}) {
	p.waits <- struct{}{}
	select {
	case <-p.go_:
	case <-done:
	}
}

func (p *heldPacer) Hurry() { p.go_ <- struct{}{} }

// pacedFake is a fake PTY's Manager, a sink and a held pacer.
func pacedFake() (*fakePTY, *Manager, *textSink, *heldPacer) {
	f := newFakePTY()
	return f, managerWith(f), &textSink{}, &heldPacer{waits: make(chan struct{}, 100), go_: make(chan struct{}, 100)}
}

// opts are the test's Options with sink and the pacer.
func (p *heldPacer) opts(sink *textSink) Options {
	opts := testOpts
	opts.Sinks, opts.Pacer = []Sink{sink}, p
	return opts
}

// TestContract_O9_SmallReadsArePaced: after a small read the reader waits
// in its Pacer and reads nothing meanwhile; what the child wrote in that
// time comes whole, in order, after the wait; a flood's read is followed
// by no wait.
func TestContract_O9_SmallReadsArePaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, m, sink, pacer := pacedFake()
		start(t, m, pacer.opts(sink))

		f.output <- []byte("ab")
		synctest.Wait()
		if n := len(pacer.waits); n != 1 {
			t.Fatalf("%d waits after one small read, want 1", n)
		}
		if got := sink.String(); got != "ab" {
			t.Fatalf("delivered %q before the wait, want %q", got, "ab")
		}
		// The child writes on while the reader waits: nothing is read.
		sent := make(chan struct{})
		go func() { f.output <- []byte("cd"); close(sent) }()
		synctest.Wait()
		if isClosed(sent) {
			t.Fatal("the reader read while it was paced")
		}
		pacer.go_ <- struct{}{}
		synctest.Wait()
		if got := sink.String(); got != "abcd" {
			t.Fatalf("delivered %q after the wait, want %q", got, "abcd")
		}
		if n := len(pacer.waits); n != 2 {
			t.Fatalf("%d waits after two small reads, want 2", n)
		}
		// A flood's read (handOff or more) goes on at once.
		pacer.go_ <- struct{}{}
		synctest.Wait()
		f.output <- []byte(strings.Repeat("x", handOff))
		f.output <- []byte(strings.Repeat("y", handOff))
		passWindow()
		if n := len(pacer.waits); n != 2 {
			t.Errorf("%d waits after two large reads, want still 2", n)
		}
		if got := sink.String(); got != "abcd"+strings.Repeat("x", handOff)+strings.Repeat("y", handOff) {
			t.Errorf("delivered %d bytes, want %d", len(got), 4+2*handOff)
		}
		shutdownAll(t, m)
		time.Sleep(time.Second)
	})
}

// TestContract_O9_InputEndsAPace: input written to the child ends the
// reader's wait, so a program's answer (an echo, the next query of a
// dialogue with the terminal) is read at once.
func TestContract_O9_InputEndsAPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, m, sink, pacer := pacedFake()
		s := start(t, m, pacer.opts(sink))

		f.output <- []byte("query")
		synctest.Wait()
		if n := len(pacer.waits); n != 1 {
			t.Fatalf("%d waits after one small read, want 1", n)
		}
		if err := s.Write([]byte("reply")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case f.output <- []byte("answer"):
		default:
			t.Fatal("the reader still waits after input reached the child")
		}
		synctest.Wait()
		if got := sink.String(); got != "queryanswer" {
			t.Errorf("delivered %q, want %q", got, "queryanswer")
		}
		shutdownAll(t, m)
		time.Sleep(time.Second)
	})
}

// TestContract_O9_FastChildIsNotPaced: a child that wrote paceBelow bytes
// or more in the last paceWindow is read without pacing, its small reads
// too; once it has been quiet, its small reads are paced again.
func TestContract_O9_FastChildIsNotPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, m, sink, pacer := pacedFake()
		for range cap(pacer.go_) {
			pacer.go_ <- struct{}{} // every wait ends at once
		}
		start(t, m, pacer.opts(sink))
		piece := []byte(strings.Repeat("p", 512))
		for range 2 * paceBelow / len(piece) {
			f.output <- piece
		}
		synctest.Wait()
		if n, want := len(pacer.waits), paceBelow/len(piece)-1; n != want {
			t.Fatalf("%d waits while the child wrote %d bytes at once, want %d (until it passed %d)",
				n, 2*paceBelow, want, paceBelow)
		}
		time.Sleep(paceWindow) // the next window: the last one was fast
		f.output <- []byte("small")
		synctest.Wait()
		if n, want := len(pacer.waits), paceBelow/len(piece)-1; n != want {
			t.Errorf("%d waits after a small read that followed a fast window, want still %d", n, want)
		}
		time.Sleep(3 * paceWindow) // quiet
		f.output <- []byte("small")
		synctest.Wait()
		if n, want := len(pacer.waits), paceBelow/len(piece); n != want {
			t.Errorf("%d waits after a small read once quiet, want %d", n, want)
		}
		shutdownAll(t, m)
		time.Sleep(time.Second)
	})
}
