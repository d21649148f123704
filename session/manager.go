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

	starts map[*starting]struct{} // Starts in flight, not yet returned

	owned   sync.WaitGroup // teardowns, starts in flight, and provider calls they gave up on
	changed chan struct{}
}

// NewManager returns a Manager that opens PTYs with the given providers.
func NewManager(t providers.Table) *Manager {
	return &Manager{providers: t, sessions: map[ID]*Session{}, starts: map[*starting]struct{}{}, changed: make(chan struct{}, 1)}
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

// ErrStartTimeout is returned by Shutdown for a start still inside its
// provider's Open when the start's bound passed; the start goes on, owned
// by the Manager, and Wait waits for it.
var ErrStartTimeout = errors.New("start did not finish in time; it continues in the background")

// starting is a Start in flight: owned by the Manager from admission until
// it returned, registered or released (contract S1), so that Shutdown can
// cancel it and wait for it, and Wait counts it.
type starting struct {
	name   string
	bound  time.Duration
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when Start returns
}

// Start opens a PTY with the named provider and registers a session for it.
// Either the session is registered and the Manager owns its cleanup, or
// everything the provider created is released before Start returns, on
// error, cancellation or panic (contract S1). Cancelling ctx (a pane
// closed while starting) cancels the start, and so does Shutdown, which
// waits for it.
func (m *Manager) Start(ctx context.Context, provider string, spec providers.Spec, opts Options) (*Session, error) {
	p, err := m.providers.Lookup(provider)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Name, err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil) // providers keep nothing of Open's context once it returned
	st := &starting{name: spec.Name, bound: opts.withDefaults().Bound, cancel: cancel, done: make(chan struct{})}
	if !m.admit(st) {
		return nil, fmt.Errorf("start %q: %w", spec.Name, ErrShuttingDown)
	}
	defer m.finishStart(st) // after the release below
	pty, err := p.Open(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Name, err)
	}
	s := newSession(0, spec.Name, provider, pty, opts, m.notify, m.adopt)
	registered := false
	defer func() {
		if !registered {
			m.release(pty)
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

// admit records a start in flight, unless admission has closed (C10).
func (m *Manager) admit(st *starting) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing {
		return false
	}
	m.starts[st] = struct{}{}
	m.owned.Add(1)
	return true
}

func (m *Manager) finishStart(st *starting) {
	m.mu.Lock()
	delete(m.starts, st)
	m.mu.Unlock()
	close(st.done)
	m.owned.Done()
}

// adopt runs f, the wait for provider calls a teardown or release gave up
// on, on a goroutine the Manager owns (C9). It is called only by owned
// goroutines, so the counter is never zero then.
func (m *Manager) adopt(f func()) { m.owned.Go(f) }

// release kills, reaps and closes a PTY nobody will own. Every provider
// call is bounded (C15): a stuck transport is closed regardless.
func (m *Manager) release(pty providers.PTY) {
	var calls providerCalls
	ctx, cancel := context.WithTimeout(context.Background(), killWait)
	defer cancel()
	_, _ = calls.do(ctx, nil, func() error { return pty.Signal(sigKill) }) // Best effort: the group may be gone already.
	if _, err := pty.Wait(ctx); err == nil {
		untilGroupGone(ctx, &calls, pty)
	}
	_ = pty.Close() // Best effort: the start error is what the caller reports.
	calls.join(callJoinBound, m.adopt)
}

// untilGroupGone polls, with a short backoff, until the group is gone, a
// GroupAlive fails or does not answer, or ctx ends.
func untilGroupGone(ctx context.Context, calls *providerCalls, pty providers.PTY) {
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if alive, err, ok := calls.groupAlive(ctx, pty); !ok || err != nil || !alive {
			return
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
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
		m.owned.Go(func() { s.teardown(func() { m.remove(s.id) }) })
	})
}

func (m *Manager) remove(id ID) {
	m.mu.Lock()
	delete(m.sessions, id)
	m.mu.Unlock()
}

// Shutdown closes admission (C10), cancels every start in flight (S1),
// starts every session's teardown, including waiting on those already in
// flight (C7), and waits for each start and session up to its own bound
// (C8). It returns ctx's cause first if ctx was cancelled, then the
// sessions' errors in session order, then the starts' errors.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closing = true
	starts := make([]*starting, 0, len(m.starts))
	for st := range m.starts {
		starts = append(starts, st)
	}
	m.mu.Unlock()
	// A start that opens its PTY from now on finds admission closed and
	// releases it; the sessions listed below are all there will be.
	for _, st := range starts {
		st.cancel(ErrShuttingDown)
	}
	ss := m.snapshot()
	for _, s := range ss {
		m.beginTeardown(s, ReasonShutdown)
	}
	errs := make([]error, len(ss)+len(starts))
	var wg sync.WaitGroup
	for i, s := range ss {
		// Each waits on its own bound; a context that is never cancelled
		// keeps the caller's cause out of the per-session results.
		wg.Go(func() { errs[i] = s.await(context.WithoutCancel(ctx)) })
	}
	for i, st := range starts {
		wg.Go(func() { errs[len(ss)+i] = st.await() })
	}
	wg.Wait()
	err := errors.Join(errs...)
	if ctx.Err() != nil {
		return errors.Join(context.Cause(ctx), err)
	}
	return err
}

// await waits for a cancelled start to return, up to its bound (C9).
func (st *starting) await() error {
	t := time.NewTimer(st.bound + reportMargin)
	defer t.Stop()
	select {
	case <-st.done:
		return nil // its error went to its caller
	case <-t.C:
		return fmt.Errorf("start %q: %w", st.name, ErrStartTimeout)
	}
}

// Wait waits for every goroutine the Manager owns: teardowns, including
// those whose callers stopped waiting at their bound (C9), starts in
// flight, and provider calls a teardown gave up on. Call it after
// Shutdown, which closes admission.
func (m *Manager) Wait() { m.owned.Wait() }
