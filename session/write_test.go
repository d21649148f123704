package session

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// roomPTY is a fake PTY that can be written without waiting, taking at
// most room bytes a WriteNow (-1: all); Write, the writer goroutine's,
// takes everything.
type roomPTY struct {
	*fakePTY
	room  int
	nows  int           // WriteNow calls
	queue int           // Write calls
	hold  chan struct{} // when set, Write waits for it to close
}

func (p *roomPTY) WriteNow(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nows++
	n := len(b)
	if p.room >= 0 {
		n = min(n, p.room)
	}
	p.written = append(p.written, b[:n]...)
	return n, nil
}

func (p *roomPTY) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.queue++
	hold := p.hold
	p.mu.Unlock()
	if hold != nil {
		<-hold
	}
	return p.fakePTY.Write(b)
}

func (p *roomPTY) state() (written string, nows, queue int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.written), p.nows, p.queue
}

// Input to a PTY that takes it at once is written by Write itself, on
// the caller's goroutine, and ends the reader's pace; what the PTY does
// not take is queued, and input that comes while some is queued waits
// its turn behind it: the child gets every byte in order.
func TestWriteGoesStraightToAPTYWithRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &roomPTY{fakePTY: newFakePTY(), room: -1}
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) { return f, nil }}})
		pacer := &heldPacer{waits: make(chan struct{}, 100), go_: make(chan struct{}, 100)}
		s := start(t, m, pacer.opts(&textSink{}))

		if err := s.Write([]byte("k")); err != nil {
			t.Fatal(err)
		}
		// No synctest.Wait: it was written before Write returned.
		if got, nows, _ := f.state(); got != "k" || nows != 1 {
			t.Fatalf("after Write the child has %q (%d direct writes), want %q at once", got, nows, "k")
		}
		if s.writerOn.Load() {
			t.Error("a writer goroutine started for input written at once")
		}
		if len(pacer.go_) != 1 {
			t.Error("input written at once did not end the reader's pace")
		}

		// The writer goroutine is held in its write of "cd" until "ef"
		// came: left to run, it could have drained the queue first.
		hold := make(chan struct{})
		f.mu.Lock()
		f.room, f.hold = 2, hold
		f.mu.Unlock()
		if err := s.Write([]byte("abcd")); err != nil {
			t.Fatal(err)
		}
		if err := s.Write([]byte("ef")); err != nil { // "cd" is queued: this waits behind it
			t.Fatal(err)
		}
		close(hold)
		synctest.Wait()
		got, nows, queue := f.state()
		if got != "kabcdef" {
			t.Errorf("the child got %q, want %q", got, "kabcdef")
		}
		if nows != 2 || queue != 2 {
			t.Errorf("%d direct writes and %d queued, want 2 and 2 (the rest of abcd, then ef)", nows, queue)
		}
		f.mu.Lock()
		f.room = -1
		f.mu.Unlock()
		if err := s.Write([]byte("g")); err != nil {
			t.Fatal(err)
		}
		if got, nows, _ := f.state(); got != "kabcdefg" || nows != 3 {
			t.Errorf("once the queue drained, Write gave %q after %d direct writes, want it written at once", got, nows)
		}
		shutdownAll(t, m)
		time.Sleep(time.Second)
	})
}
