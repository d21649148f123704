// Package muxtest is a fake of the session Manager, for the tests of the
// shared side (package mux) and of its views (package ui): it counts
// every call, starts sessions that only record their input, and fails,
// holds or ends them as a test sets up. It owns no goroutine.
//
// It must not import package mux (whose own tests use it) nor ui: each
// test package adapts its Backend to mux.Backend in a few lines.
package muxtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// Backend counts every call. Its blocking methods (all but Changed and
// KillAll) must only ever run inside commands, never from Update. Hold Mu
// to read or change its fields while a command may run.
type Backend struct {
	Mu       sync.Mutex
	Calls    map[string]int
	ChangedC chan struct{}
	Next     session.ID
	Sessions []*Session
	StartErr map[string]error  // by pane name
	Output   map[string]string // written to the sinks at start, by pane name
	// Survivors, when set, is what every teardown leaves alive.
	Survivors []providers.Process
	// StartGate, by pane name, holds Start until it is closed or the
	// start's context is cancelled.
	StartGate map[string]chan struct{}
	CloseErr  map[string]error // returned by Close and Kill, by pane name
}

// NewBackend returns a Backend with no session.
func NewBackend() *Backend {
	return &Backend{Calls: map[string]int{}, ChangedC: make(chan struct{}, 1), StartErr: map[string]error{},
		StartGate: map[string]chan struct{}{}, Output: map[string]string{}, CloseErr: map[string]error{}}
}

// Count counts a call of name.
func (b *Backend) Count(name string) {
	b.Mu.Lock()
	b.Calls[name]++
	b.Mu.Unlock()
}

// Total is every call counted, resizes included.
func (b *Backend) Total() int {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	n := 0
	for _, c := range b.Calls {
		n += c
	}
	for _, s := range b.Sessions {
		n += s.Resizes
	}
	return n
}

// StartSession is the Manager's Start: it fails as StartErr says, waits
// for StartGate, then writes Output to the sinks and the screen.
func (b *Backend) StartSession(ctx context.Context, _ string, spec providers.Spec, opts session.Options) (*Session, error) {
	b.Count("Start")
	if err := b.StartErr[spec.Name]; err != nil {
		return nil, err
	}
	if gate := b.StartGate[spec.Name]; gate != nil {
		// Connecting until the gate opens or the start is cancelled, as
		// the Manager's Start does.
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	b.Mu.Lock()
	b.Next++
	s := &Session{b: b, Live: session.Info{ID: b.Next, Name: spec.Name, State: session.Running}, Opts: opts}
	if b.Output[spec.Name] != "" {
		s.Live.LastOutput = FixedNow()
	}
	b.Sessions = append(b.Sessions, s)
	out := b.Output[spec.Name]
	b.Mu.Unlock()
	for _, sink := range opts.Sinks {
		sink.Output(out)
	}
	if opts.Screen != nil && out != "" {
		// As the session's consumer does: a turn, then the text.
		opts.Turns.Take()
		opts.Screen.Write(out)
		opts.Turns.Give()
	}
	return s, nil
}

// End ends session id with st, as its teardown does.
func (b *Backend) End(id session.ID, st providers.ExitStatus, killed bool) {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	for _, s := range b.Sessions {
		if s.Live.ID == id {
			s.Live.State, s.Live.Exit, s.Live.ExitKnown, s.Live.Killed = session.Closed, st, true, killed
			if len(b.Survivors) > 0 {
				s.Live.Killed, s.Live.Survivors = false, b.Survivors
				s.Live.Err = fmt.Errorf("process group still alive after SIGKILL; survivors: %v", b.Survivors[0])
			}
		}
	}
}

// Close ends session id as a hang-up does.
func (b *Backend) Close(_ context.Context, id session.ID) error {
	b.Count("Close")
	b.End(id, providers.ExitStatus{Code: -1, Signal: 1}, true)
	return b.TeardownErr(id)
}

// Kill ends session id as SIGKILL does.
func (b *Backend) Kill(_ context.Context, id session.ID) error {
	b.Count("Kill")
	b.End(id, providers.ExitStatus{Code: -1, Signal: 9}, true)
	return b.TeardownErr(id)
}

// TeardownErr is the error set for the session's pane in CloseErr, also
// kept in its Info as the Manager does.
func (b *Backend) TeardownErr(id session.ID) error {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	for _, s := range b.Sessions {
		if s.Live.ID == id {
			s.Live.Err = b.CloseErr[s.Live.Name]
			return s.Live.Err
		}
	}
	return nil
}

// Shutdown ends every session.
func (b *Backend) Shutdown(context.Context) error {
	b.Count("Shutdown")
	for _, s := range b.Sessions {
		b.End(s.Live.ID, providers.ExitStatus{Code: -1, Signal: 1}, true)
	}
	return nil
}

// KillAll only counts.
func (b *Backend) KillAll() { b.Count("KillAll") }

// Changed is poked by nothing but a test.
func (b *Backend) Changed() <-chan struct{} { return b.ChangedC }

// List is every session's info.
func (b *Backend) List() []session.Info {
	b.Count("List")
	b.Mu.Lock()
	defer b.Mu.Unlock()
	var infos []session.Info
	for _, s := range b.Sessions {
		infos = append(infos, s.Live)
	}
	return infos
}

// Session records input; Write only queues (it is the one method Update
// may call), Resize counts as a blocking call.
type Session struct {
	b       *Backend
	Live    session.Info // its info as Info reports it; hold b.Mu to change it
	Input   []byte
	Resizes int
	Use     *providers.Usage // nil: the provider cannot tell
	Opts    session.Options  // what it was started with
	// OnWrite, when set, runs in Write before the input is kept: where
	// a child that answers at once would answer.
	OnWrite func(p []byte)
}

func (s *Session) ID() session.ID { return s.Live.ID }

func (s *Session) Write(p []byte) error {
	if s.OnWrite != nil {
		s.OnWrite(p)
	}
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	s.Input = append(s.Input, p...)
	return nil
}

func (s *Session) Resize(providers.Size) error {
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	s.Resizes++
	return nil
}

func (s *Session) Info() session.Info {
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	return s.Live
}

func (s *Session) LastOutput() time.Time {
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	return s.Live.LastOutput
}

// MemBytes is what the fake holds in buffers of its own: nothing.
func (s *Session) MemBytes() int64 { return 0 }

func (s *Session) Usage() (providers.Usage, bool) {
	s.b.Count("Usage") // it reads files: commands only
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	if s.Use == nil {
		return providers.Usage{}, false
	}
	return *s.Use, true
}

// OutputAt records that output arrived at t, as the session would.
func (s *Session) OutputAt(t time.Time) {
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	s.Live.LastOutput = t
}

// Typed is every byte written to the session.
func (s *Session) Typed() string {
	s.b.Mu.Lock()
	defer s.b.Mu.Unlock()
	return string(s.Input)
}

// ErrFailedStart is a start's error as a provider reports it.
var ErrFailedStart = errors.New("dial tcp 127.0.0.1:2222: connection refused")

// FixedNow pins the clock shown in titles.
func FixedNow() time.Time { return time.Date(2026, 11, 29, 12, 34, 56, 0, time.UTC) }
