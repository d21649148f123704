package session

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// TestUsagePassesThrough: a local session reports its processes' usage;
// a PTY that cannot tell reports none.
func TestUsagePassesThrough(t *testing.T) {
	m := localManager()
	defer m.Wait()
	s := startLocal(t, m, nil, "sleep", "1000")
	// A process just exec'd may read as holding nothing: the kernel's
	// resident counts lag its first pages, and its new cgroup has nothing
	// charged yet. The pane shows its memory at a later read.
	for deadline := time.Now().Add(20 * time.Second); ; {
		u, ok := s.Usage()
		if !ok {
			t.Fatalf("a local session's Usage = %+v, %v; want it told", u, ok)
		}
		if u.RSS > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a local session's Usage = %+v after 20s; want some memory", u)
		}
		time.Sleep(10 * time.Millisecond) // a poll: nothing tells when the kernel's counts move
	}
	if err := m.Kill(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}

	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		fm := managerWith(f)
		fs := start(t, fm, testOpts)
		if u, ok := fs.Usage(); ok {
			t.Errorf("a PTY without usage reports %+v", u)
		}
		f.exit(providers.ExitStatus{})
		_ = fm.Close(context.Background(), fs.ID()) // Best effort: the fake's teardown is not under test.
		fm.Wait()
	})
}
