package session

import (
	"context"
	"errors"
	"io"
	"sync"
	"syscall"

	"github.com/sandmux/sandmux/providers"
)

// fakePTY is a PTY whose every step is a gate the test controls: output is
// handed to Read through a channel, the "process" exits when the test says
// or when a signal it obeys arrives, and Close can be made to block.
type fakePTY struct {
	output    chan []byte   // each element is one Read; close for EOF
	closed    chan struct{} // closed by Close: Read returns EOF
	closeOnce sync.Once
	closeGate chan struct{} // if set, Close blocks until it is closed
	closeErr  error

	exited   chan struct{}
	exitOnce sync.Once
	status   providers.ExitStatus
	waitErr  error // Wait's error once exited, as a provider that lost the process

	mu         sync.Mutex
	pending    []byte
	signals    []syscall.Signal
	obey       map[syscall.Signal]bool // signals that end the whole group
	signalErr  map[syscall.Signal]error
	background bool // after the leader exits, the group still has members
	survivors  []providers.Process
	written    []byte
	closes     int
}

func newFakePTY() *fakePTY {
	return &fakePTY{
		output: make(chan []byte),
		closed: make(chan struct{}),
		exited: make(chan struct{}),
		obey:   map[syscall.Signal]bool{syscall.SIGHUP: true, syscall.SIGTERM: true, syscall.SIGKILL: true},
	}
}

// takePending reads what a read left of an output element, if any.
func (f *fakePTY) takePending(p []byte) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 {
		return 0, false
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, true
}

// took reads output element b into p, keeping what does not fit.
func (f *fakePTY) took(p, b []byte) int {
	n := copy(p, b)
	f.mu.Lock()
	f.pending = append(f.pending, b[n:]...)
	f.mu.Unlock()
	return n
}

func (f *fakePTY) Read(p []byte) (int, error) {
	if n, ok := f.takePending(p); ok {
		return n, nil
	}
	select {
	case b, ok := <-f.output:
		if !ok {
			return 0, io.EOF
		}
		return f.took(p, b), nil
	case <-f.closed:
		return 0, io.EOF
	}
}

func (f *fakePTY) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.written = append(f.written, p...)
	return len(p), nil
}

func (f *fakePTY) Resize(providers.Size) error { return nil }

func (f *fakePTY) Signal(sig syscall.Signal) error {
	f.mu.Lock()
	f.signals = append(f.signals, sig)
	obey, err := f.obey[sig], f.signalErr[sig]
	if obey {
		f.background = false
	}
	f.mu.Unlock()
	if obey {
		f.exit(providers.ExitStatus{Code: -1, Signal: sig})
	}
	return err
}

// exit reaps the fake leader with st (once).
func (f *fakePTY) exit(st providers.ExitStatus) {
	f.exitOnce.Do(func() {
		f.status = st
		close(f.exited)
	})
}

func (f *fakePTY) Wait(ctx context.Context) (providers.ExitStatus, error) {
	select {
	case <-f.exited:
		return f.status, f.waitErr
	case <-ctx.Done():
		return providers.ExitStatus{}, context.Cause(ctx)
	}
}

func (f *fakePTY) GroupAlive() (bool, error) {
	select {
	case <-f.exited:
	default:
		return true, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.background, nil
}

// Survivors names the members left (providers.SurvivorLister).
func (f *fakePTY) Survivors() []providers.Process {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.background {
		return nil
	}
	return f.survivors
}

func (f *fakePTY) Close() error {
	if f.closeGate != nil {
		<-f.closeGate
	}
	f.mu.Lock()
	f.closes++
	f.mu.Unlock()
	f.closeOnce.Do(func() { close(f.closed) })
	return f.closeErr
}

func (f *fakePTY) sentSignals() []syscall.Signal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]syscall.Signal(nil), f.signals...)
}

func (f *fakePTY) isClosed() bool {
	select {
	case <-f.closed:
		return true
	default:
		return false
	}
}

// fakeProvider hands out the PTYs the test prepared, through an optional
// gate on Open.
type fakeProvider struct {
	open func(ctx context.Context, spec providers.Spec) (providers.PTY, error)
}

func (p fakeProvider) Open(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
	return p.open(ctx, spec)
}

// managerWith returns a Manager whose "fake" provider returns ptys in order.
func managerWith(ptys ...*fakePTY) *Manager {
	var mu sync.Mutex
	return NewManager(providers.Table{"fake": fakeProvider{open: func(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(ptys) == 0 {
			return nil, errors.New("no more fake ptys")
		}
		p := ptys[0]
		ptys = ptys[1:]
		return p, nil
	}}})
}

// textSink records output text; an optional gate blocks each Output call.
type textSink struct {
	mu   sync.Mutex
	text []byte
	gate chan struct{}
}

func (s *textSink) Output(text string) {
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	s.text = append(s.text, text...)
	s.mu.Unlock()
}

func (s *textSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.text)
}
