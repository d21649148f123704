package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/attach"
)

// serverAttacher ends each attach as server.Server does: once its
// context ends, it writes the last frame and finishes the stream at
// once, reading nothing of the page's first.
type serverAttacher struct{ streams chan attach.Stream }

func (f *serverAttacher) Attach(ctx context.Context, st attach.Stream) error {
	f.streams <- st
	<-ctx.Done()
	_, werr := st.Write([]byte("the last frame"))
	ferr := st.Finish(attach.Exit{Detached: true})
	if werr != nil {
		return werr
	}
	return ferr
}

// TestContract_A21_RevokeTellsThePageWhicheverRunsFirst: a revoked page is told
// "token revoked", and the log says so and logs no failure, even when
// the attach the revocation ends races ahead and finishes the stream
// first (a loaded machine lets it: the revoking goroutine can lose its
// CPU between any two steps). Many rounds: on a quiet machine the race
// mostly goes the other way.
func TestContract_A21_RevokeTellsThePageWhicheverRunsFirst(t *testing.T) {
	const rounds = 200
	fake := &serverAttacher{streams: make(chan attach.Stream, 1)}
	logged := make(chan string, 16)
	r := newRigOf(t, func(c *Config) {
		keep := c.Log
		c.Log = func(s string) { keep(s); logged <- s }
	}, fake, fake.streams)
	bad := 0
	for i := range rounds {
		id, secret := r.token(false)
		c, _, err := r.dial(secret, "")
		if err != nil {
			t.Fatal(err)
		}
		r.stream()
		if _, err := r.tokens.Revoke(id); err != nil {
			t.Fatal(err)
		}
		code, reason := closeCode(t, c)
		c.CloseNow()
		end := waitEnd(t, logged)
		if code != closeRevoked || reason != "token revoked" || !strings.HasSuffix(end, "(exit 0, token revoked)") {
			if bad++; bad <= 3 {
				t.Errorf("round %d: the revoked page closed with %d %q, want %d \"token revoked\"; logged %q", i, code, reason, closeRevoked, end)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d revoked pages were not told so", bad, rounds)
	}
}

// waitEnd returns the next line logging a page's end, failing the test
// on a failure logged before it.
func waitEnd(t *testing.T, logged <-chan string) string {
	t.Helper()
	bound := time.NewTimer(30 * time.Second) // a bound on a failure only
	defer bound.Stop()
	for {
		select {
		case l := <-logged:
			if strings.Contains(l, "failed") {
				t.Errorf("logged %q", l)
			}
			if strings.HasPrefix(l, "detached ") || strings.HasPrefix(l, "ended ") {
				return l
			}
		case <-bound.C:
			t.Fatal("no page's end logged")
			return ""
		}
	}
}
