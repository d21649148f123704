package tty

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/creack/pty"
)

// A pump hands over what a pipe carries, then says the input ended.
func TestPumpDeliversThenEnds(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 4)
	why := make(chan error, 1)
	p := StartPump(r, 64, func(b []byte) error { got <- string(b); return nil }, func(err error) { why <- err })
	defer p.Stop()
	if _, err := w.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "abc" {
		t.Errorf("delivered %q, want abc", s)
	}
	w.Close()
	if err := <-why; !errors.Is(err, io.EOF) {
		t.Errorf("ended with %v, want EOF", err)
	}
}

// Stop ends a read that would block for good, and says so.
func TestPumpStop(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	why := make(chan error, 1)
	p := StartPump(r, 64, func([]byte) error { return nil }, func(err error) { why <- err })
	if !p.Cancelable() {
		t.Fatal("a pipe's read cannot be stopped")
	}
	p.Stop()
	p.Stop() // idempotent
	if err := <-why; !errors.Is(err, ErrStopped) {
		t.Errorf("ended with %v, want ErrStopped", err)
	}
}

// A refusal from deliver stops the pump with it.
func TestPumpRefused(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	refused := errors.New("refused")
	why := make(chan error, 1)
	p := StartPump(r, 64, func([]byte) error { return refused }, func(err error) { why <- err })
	defer p.Stop()
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := <-why; !errors.Is(err, refused) {
		t.Errorf("ended with %v, want deliver's error", err)
	}
}

// The follower reports a real terminal's new size, once per change.
func TestFollowSize(t *testing.T) {
	ptmx, tt, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pty: %v", err)
	}
	defer ptmx.Close()
	defer tt.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	tick := make(chan struct{})
	sizes := make(chan [2]int, 4)
	f := FollowSize(tt, 80, 24, tick, func(w, h int) { sizes <- [2]int{w, h} })
	defer f.Stop()
	tick <- struct{}{} // unchanged: nothing to say
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 132, Rows: 43}); err != nil {
		t.Fatal(err)
	}
	tick <- struct{}{}
	if got := <-sizes; got != [2]int{132, 43} {
		t.Errorf("size %v, want 132x43", got)
	}
	f.Stop()
	select {
	case got := <-sizes:
		t.Errorf("an unchanged size was reported: %v", got)
	default:
	}
}
