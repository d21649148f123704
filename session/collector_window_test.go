package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestContract_O5_CancelledWindowLosesNothing(t *testing.T) {
	wantCancelled := func(t *testing.T, w windowResult) {
		t.Helper()
		if !errors.Is(w.err, errTestCancel) || w.err.Error() != errTestCancel.Error() || w.text != "" || w.closed {
			t.Fatalf("cancelled window = (%q, %v, %v); want (\"\", false, %v)", w.text, w.closed, w.err, errTestCancel)
		}
	}
	t.Run("cancelled while gathering after draining", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "héllo\xe2")
			wantWindow(t, collectNow(t, c, 0), "héllo", false) // carries e2
			pushString(t, c, "\x82\xac wörld\xf0\x9f")
			ctx, cancel := context.WithCancelCause(t.Context())
			res := startWindow(ctx, c, time.Hour)
			synctest.Wait() // the window has drained and waits for its deadline
			c.mu.Lock()
			held := c.held
			c.mu.Unlock()
			if held == 0 {
				t.Fatal("window did not drain before the cancellation; the test proves nothing")
			}
			pushString(t, c, "\x98") // taken by the window too
			synctest.Wait()
			cancel(errTestCancel)
			wantCancelled(t, <-res)
			if got, want := string(c.queue), "\xe2\x82\xac wörld\xf0\x9f\x98"; got != want {
				t.Fatalf("queue after cancel = %q, want carry and drained bytes in order %q", got, want)
			}
			pushString(t, c, "\x80!")
			c.Close()
			if got := drainUntilClosed(t, c, 0); got != "€ wörld😀!" {
				t.Fatalf("after cancel got %q", got)
			}
		})
	})
	t.Run("carry pulled back out while waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "a\xe2\x82")
			wantWindow(t, collectNow(t, c, 0), "a", false)
			ctx, cancel := context.WithCancelCause(t.Context())
			res := startWindow(ctx, c, 0)
			synctest.Wait()
			cancel(errTestCancel)
			wantCancelled(t, <-res)
			pushString(t, c, "\xac")
			wantWindow(t, collectNow(t, c, 0), "€", false)
			c.Close()
			wantWindow(t, collectNow(t, c, 0), "", true)
		})
	})
	t.Run("cancelled at the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			ctx, cancel := context.WithCancelCause(t.Context())
			c.hookDeadline = func() { cancel(errTestCancel) }
			streaming(c)
			pushString(t, c, "ab\xc3")
			wantCancelled(t, asWindow(c.Collect(ctx, time.Millisecond)))
			c.hookDeadline = nil
			pushString(t, c, "\xa9")
			wantWindow(t, collectNow(t, c, 0), "abé", false)
		})
	})
	t.Run("already cancelled with bytes queued", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "abc")
			ctx, cancel := context.WithCancelCause(t.Context())
			cancel(errTestCancel)
			wantCancelled(t, asWindow(c.Collect(ctx, 0)))
			wantWindow(t, collectNow(t, c, 0), "abc", false)
		})
	})
	t.Run("repeated cancellations", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "x\xf0")
			wantWindow(t, collectNow(t, c, 0), "x", false)
			rounds := []struct {
				wait time.Duration
				push string
			}{{0, "\x9f"}, {time.Hour, "\x98"}, {time.Hour, "\x80"}, {time.Hour, "y"}}
			for _, r := range rounds {
				ctx, cancel := context.WithCancelCause(t.Context())
				res := startWindow(ctx, c, r.wait)
				synctest.Wait()
				pushString(t, c, r.push)
				synctest.Wait()
				cancel(errTestCancel)
				wantCancelled(t, <-res)
			}
			c.Close()
			if got := drainUntilClosed(t, c, 0); got != "😀y" {
				t.Fatalf("after repeated cancels got %q, want %q", got, "😀y")
			}
		})
	})
}

// streaming puts c in the middle of a stream, as if a window had just
// returned text, so the next window gathers for its maxWait instead of
// returning the first bytes at once.
func streaming(c *Collector) { c.lastText = time.Now() }

// The first bytes after a quiet spell (an echo) go out at once however
// long the window; bytes that follow within the window are gathered.
func TestCollectorLeadingEdge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewCollector(64)
		start := time.Now()
		res := startWindow(t.Context(), c, time.Hour)
		synctest.Wait()
		pushString(t, c, "a")
		wantWindow(t, <-res, "a", false)
		if d := time.Since(start); d != 0 {
			t.Errorf("first window after quiet took %v, want at once", d)
		}
		// Streaming now: the next window waits out its maxWait.
		res = startWindow(t.Context(), c, 10*time.Millisecond)
		synctest.Wait()
		pushString(t, c, "b")
		synctest.Wait()
		pushString(t, c, "c")
		wantWindow(t, <-res, "bc", false)
		// A pause longer than the window: at once again.
		time.Sleep(20 * time.Millisecond)
		res = startWindow(t.Context(), c, 10*time.Millisecond)
		synctest.Wait()
		pushString(t, c, "d")
		wantWindow(t, <-res, "d", false)
	})
}

// asWindow gathers Collect's three results into one value.
func asWindow(text string, closed bool, err error) windowResult {
	return windowResult{text, closed, err}
}

func TestContract_O6_BytesAtDeadlineBelongToWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewCollector(64)
		atDeadline, release := make(chan struct{}), make(chan struct{})
		c.hookDeadline = func() {
			atDeadline <- struct{}{}
			<-release
		}
		streaming(c)
		pushString(t, c, "early ")
		start := time.Now()
		res := startWindow(t.Context(), c, 10*time.Millisecond)
		synctest.Wait()
		pushString(t, c, "middle ")
		<-atDeadline
		if d := time.Since(start); d != 10*time.Millisecond {
			t.Errorf("deadline after %v, want maxWait (10ms) after the first byte was taken", d)
		}
		// The deadline has passed; these arrive before the final drain.
		pushString(t, c, "late\xe2\x82\xac")
		c.Close()
		close(release)
		wantWindow(t, <-res, "early middle late€", true)
	})
}

func TestContract_O8_QueueIsBounded(t *testing.T) {
	const capacity, chunk = 8, 4
	bound := func(t *testing.T, c *Collector) {
		t.Helper()
		c.mu.Lock()
		defer c.mu.Unlock()
		if n := len(c.queue) + c.held; n > capacity+chunk {
			t.Fatalf("collector holds %d bytes; bound is capacity+chunk = %d", n, capacity+chunk)
		}
	}
	t.Run("producer blocks and loses nothing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(capacity)
			var want strings.Builder
			pushed := make(chan int, 100)
			go func() {
				for i := range 20 {
					pushString(t, c, "ab€"[:chunk-1]+string(rune('a'+i)))
					pushed <- i
				}
				c.Close()
			}()
			synctest.Wait()
			if n := len(pushed); n != 2 {
				t.Fatalf("%d pushes went through before any window; want 2 (8 bytes fill capacity 8)", n)
			}
			bound(t, c)
			for i := range 20 {
				want.WriteString("ab\xe2" + string(rune('a'+i)))
			}
			var got strings.Builder
			for {
				w := collectNow(t, c, 0)
				got.WriteString(w.text)
				synctest.Wait()
				bound(t, c)
				if w.closed {
					break
				}
			}
			if got.String() != refFinal([]byte(want.String())) {
				t.Fatalf("got %q, want %q", got.String(), refFinal([]byte(want.String())))
			}
		})
	})
	t.Run("blocked push returns the cause and queues nothing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(capacity)
			pushString(t, c, "12345678")
			ctx, cancel := context.WithCancelCause(t.Context())
			errc := make(chan error, 1)
			go func() { errc <- c.Push(ctx, []byte("lost")) }()
			synctest.Wait()
			select {
			case err := <-errc:
				t.Fatalf("Push on a full queue returned %v; want it to block", err)
			default:
			}
			cancel(errTestCancel)
			if err := <-errc; !errors.Is(err, errTestCancel) {
				t.Fatalf("blocked Push returned %v, want %v", err, errTestCancel)
			}
			c.Close()
			if got := drainUntilClosed(t, c, 0); got != "12345678" {
				t.Fatalf("got %q; the cancelled push must queue nothing", got)
			}
		})
	})
	t.Run("a gathering window counts against capacity and ends when full", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(capacity)
			streaming(c)
			pushString(t, c, "abcd")
			start := time.Now()
			res := startWindow(t.Context(), c, time.Hour)
			synctest.Wait()
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range 4 {
					pushString(t, c, "efgh")
				}
				c.Close()
			}()
			synctest.Wait()
			bound(t, c)
			wantWindow(t, <-res, "abcdefgh", false)
			if d := time.Since(start); d != 0 {
				t.Errorf("full window waited %v; it should end once it holds capacity bytes", d)
			}
			if got := drainUntilClosed(t, c, time.Hour); got != "efghefghefgh" {
				t.Fatalf("rest = %q", got)
			}
			<-done
		})
	})
	t.Run("capacity below one still moves bytes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(0)
			go func() {
				for _, s := range []string{"a", "\xe2", "\x82", "\xac", "b"} {
					pushString(t, c, s)
				}
				c.Close()
			}()
			if got := drainUntilClosed(t, c, time.Millisecond); got != "a€b" {
				t.Fatalf("got %q", got)
			}
		})
	})
}
