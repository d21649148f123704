package session

import (
	"context"
	"sync"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// providerCalls runs the PTY control calls of a teardown (or of the release
// of a start nobody registered), each on a goroutine of its own, so that
// the caller waits for it only up to its stage's bound (contract C15). A
// remote provider blocks in Signal or GroupAlive for as long as its
// transport stays silent; teardown then moves on to the next signal and
// finally closes the PTY, which tears the transport down and ends the
// stuck calls. The calls stay owned: join waits for them, and whatever it
// gives up on is handed to the Manager, whose Wait waits for it (C9).
//
// Its methods are called from one goroutine, the teardown's.
type providerCalls struct {
	wg    sync.WaitGroup
	alive chan aliveResult // the GroupAlive call in flight, if one is
}

type aliveResult struct {
	alive bool
	err   error
}

// do runs f and waits for it until abort closes or ctx (the stage's)
// ends; ok reports whether f returned in time (err is then its error).
func (c *providerCalls) do(ctx context.Context, abort <-chan struct{}, f func() error) (err error, ok bool) {
	done := make(chan error, 1)
	c.wg.Go(func() { done <- f() })
	select {
	case err = <-done:
		return err, true
	case <-abort:
	case <-ctx.Done():
	}
	return nil, false
}

// groupAlive asks p.GroupAlive, or goes on waiting for the call already in
// flight (a stuck provider is not asked again and again), until ctx (the
// stage's) ends; ok is false when no answer came in time.
func (c *providerCalls) groupAlive(ctx context.Context, p providers.PTY) (alive bool, err error, ok bool) {
	if c.alive == nil {
		ch := make(chan aliveResult, 1)
		c.alive = ch
		c.wg.Go(func() {
			a, err := p.GroupAlive()
			ch <- aliveResult{a, err}
		})
	}
	select {
	case r := <-c.alive:
		c.alive = nil
		return r.alive, r.err, true
	case <-ctx.Done():
	}
	return true, nil, false
}

// join waits for every call, up to bound; the calls still running then are
// handed to adopt, which must wait for them, and join reports false.
func (c *providerCalls) join(bound time.Duration, adopt func(func())) bool {
	joined := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(joined)
	}()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-joined:
		return true
	case <-t.C:
		adopt(func() { <-joined })
		return false
	}
}
