package session

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/sandmux/sandmux/providers"
)

// TestUsagePassesThrough: a local session reports its processes' usage;
// a PTY that cannot tell reports none.
func TestUsagePassesThrough(t *testing.T) {
	m := localManager()
	defer m.Wait()
	s := startLocal(t, m, nil, "sleep", "1000")
	if u, ok := s.Usage(); !ok || u.RSS <= 0 {
		t.Errorf("a local session's Usage = %+v, %v; want some memory", u, ok)
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
