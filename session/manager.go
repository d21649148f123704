package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// ErrShuttingDown is returned by Start once Shutdown has begun (C10).
var ErrShuttingDown = errors.New("sandmux is shutting down: no new sessions")

// ErrNotFound is returned for an ID the Manager does not hold.
var ErrNotFound = errors.New("no such session")

// Manager is the registry of sessions: it starts them, tears them down and
// shuts them all down, and owns every teardown goroutine.
type Manager struct {
	providers providers.Table

	mu       sync.Mutex // guards the fields below; never held across I/O (S2)
	nextID   ID
	sessions map[ID]*Session
	closing  bool

	teardowns sync.WaitGroup
	changed   chan struct{}
}

// NewManager returns a Manager that opens PTYs with the given providers.
func NewManager(t providers.Table) *Manager {
	return &Manager{providers: t, sessions: map[ID]*Session{}, changed: make(chan struct{}, 1)}
}

// Changed is signalled (one slot, never blocking the sender) whenever a
// session starts, changes state or teardown stage, or is removed. A UI
// waits on it and then calls List.
func (m *Manager) Changed() <-chan struct{} { return m.changed }

func (m *Manager) notify() {
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

// testHookBeforeRegister, when set by a test, runs after the provider opened
// the PTY and before the session is registered: a gate for S1.
var testHookBeforeRegister func()

// Start opens a PTY with the named provider and registers a session for it.
// Either the session is registered and the Manager owns its cleanup, or
// everything the provider created is released before Start returns, on
// error, cancellation or panic (contract S1).
func (m *Manager) Start(ctx context.Context, provider string, spec providers.Spec, opts Options) (*Session, error) {
	if m.admissionClosed() {
		return nil, fmt.Errorf("start %q: %w", spec.Name, ErrShuttingDown)
	}
	p, err := m.providers.Lookup(provider)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Name, err)
	}
	pty, err := p.Open(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Name, err)
	}
	s := newSession(0, spec.Name, provider, pty, opts, m.notify)
	registered := false
	defer func() {
		if !registered {
			release(pty, s.opts.Bound)
		}
	}()
	if testHookBeforeRegister != nil {
		testHookBeforeRegister()
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Name, context.Cause(ctx))
	}
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return nil, fmt.Errorf("start %q: %w", spec.Name, ErrShuttingDown)
	}
	m.nextID++
	s.id = m.nextID
	m.sessions[s.id] = s
	registered = true
	m.mu.Unlock()

	s.start()
	m.notify()
	return s, nil
}

// release kills, reaps and closes a PTY nobody will own.
func release(pty providers.PTY, bound time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	_ = pty.Signal(sigKill) // Best effort: the group may be gone already.
	if _, err := pty.Wait(ctx); err == nil {
		for delay := time.Millisecond; ctx.Err() == nil; delay = min(2*delay, 50*time.Millisecond) {
			if alive, err := pty.GroupAlive(); err != nil || !alive {
				break
			}
			time.Sleep(delay)
		}
	}
	_ = pty.Close() // Best effort: the start error is what the caller reports.
}

func (m *Manager) admissionClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closing
}

// Get returns the session with the given ID.
func (m *Manager) Get(id ID) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok
}

// List returns the registered sessions' state in ID order. Sessions stay
// registered until their teardown settles.
func (m *Manager) List() []Info {
	ss := m.snapshot()
	infos := make([]Info, len(ss))
	for i, s := range ss {
		infos[i] = s.Info()
	}
	return infos
}

func (m *Manager) snapshot() []*Session {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	slices.SortFunc(ss, func(a, b *Session) int { return int(a.id) - int(b.id) })
	return ss
}

// Close tears the session down (SIGHUP, grace, SIGTERM, grace, SIGKILL) and
// waits for it, up to the session's bound. Repeated and concurrent calls
// wait on the same teardown (C6).
func (m *Manager) Close(ctx context.Context, id ID) error {
	s, ok := m.Get(id)
	if !ok {
		return fmt.Errorf("close session %d: %w", id, ErrNotFound)
	}
	m.beginTeardown(s, ReasonClose)
	return s.await(ctx)
}

// Kill tears the session down with SIGKILL at once, also when a normal
// teardown is already waiting out a grace, and waits for it.
func (m *Manager) Kill(ctx context.Context, id ID) error {
	s, ok := m.Get(id)
	if !ok {
		return fmt.Errorf("kill session %d: %w", id, ErrNotFound)
	}
	m.beginTeardown(s, ReasonKill)
	return s.await(ctx)
}

// KillAll escalates every session's teardown to SIGKILL now, starting the
// teardowns not yet started, and returns without waiting: the callers
// already waiting (Close, Shutdown) see the result.
func (m *Manager) KillAll() {
	for _, s := range m.snapshot() {
		m.beginTeardown(s, ReasonShutdown)
		s.killOnce.Do(func() { close(s.killNow) })
	}
}

// beginTeardown starts the session's one teardown unless it has begun; the
// first request's reason is the session's. A kill also escalates a
// teardown already waiting out a grace.
func (m *Manager) beginTeardown(s *Session, why Reason) {
	if why == ReasonKill {
		s.killOnce.Do(func() { close(s.killNow) })
	}
	s.teardownOnce.Do(func() {
		s.update(func() { s.reason = why })
		m.teardowns.Go(func() { s.teardown(func() { m.remove(s.id) }) })
	})
}

func (m *Manager) remove(id ID) {
	m.mu.Lock()
	delete(m.sessions, id)
	m.mu.Unlock()
}

// Shutdown closes admission (C10), starts every session's teardown,
// including waiting on those already in flight (C7), and waits for each up
// to its own bound (C8). It returns ctx's cause first if ctx was cancelled,
// then the sessions' errors in session order.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closing = true
	m.mu.Unlock()
	ss := m.snapshot()
	for _, s := range ss {
		m.beginTeardown(s, ReasonShutdown)
	}
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		// Each waits on its own bound; a context that is never cancelled
		// keeps the caller's cause out of the per-session results.
		wg.Go(func() { errs[i] = s.await(context.WithoutCancel(ctx)) })
	}
	wg.Wait()
	err := errors.Join(errs...)
	if ctx.Err() != nil {
		return errors.Join(context.Cause(ctx), err)
	}
	return err
}

// Wait waits for every teardown goroutine the Manager owns, including those
// whose callers stopped waiting at their bound (C9).
func (m *Manager) Wait() { m.teardowns.Wait() }
