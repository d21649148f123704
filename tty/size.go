package tty

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// SizeFollower calls a function with a terminal's size each time it
// changes, on a goroutine of its own, until Stop.
//
//	SIGWINCH (or each tick of a trigger) ─► Size(f) ─► changed(w, h), when it differs
type SizeFollower struct {
	winch chan os.Signal // nil when a trigger drives it
	done  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

// FollowSize starts following f's size from w×h, the size its reader
// already has: changed gets each new size f reports after a SIGWINCH,
// or, when trigger is not nil, after each value trigger delivers (a test
// or a caller that knows of changes otherwise). Sizes f cannot report
// are skipped. The SIGWINCH handler is installed before FollowSize
// returns, so no change after it is missed.
func FollowSize(f *os.File, w, h int, trigger <-chan struct{}, changed func(w, h int)) *SizeFollower {
	s := &SizeFollower{done: make(chan struct{})}
	tick := trigger
	if tick == nil {
		s.winch = make(chan os.Signal, 1)
		signal.Notify(s.winch, syscall.SIGWINCH)
	}
	s.wg.Go(func() {
		for {
			select {
			case <-s.done:
				return
			case <-s.winch:
			case <-tick:
			}
			nw, nh, ok := Size(f)
			if !ok || nw == w && nh == h {
				continue
			}
			w, h = nw, nh
			changed(w, h)
		}
	})
	return s
}

// Stop stops following and waits for the follower; it is idempotent,
// and a nil follower is a no-op.
func (s *SizeFollower) Stop() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		if s.winch != nil {
			signal.Stop(s.winch)
		}
		close(s.done)
		s.wg.Wait()
	})
}
