package session

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"
)

// These tests pin contracts O1–O6 and O8 (CONTRACTS.md). Time is fake
// (testing/synctest); interleavings are fixed with gates and synctest.Wait,
// which returns once every other goroutine in the bubble is durably blocked.

var errTestCancel = errors.New("test cancelled the window")

type windowResult struct {
	text   string
	closed bool
	err    error
}

// startCollect runs one Collect in its own goroutine and returns where its
// result will arrive.
func startWindow(ctx context.Context, c *Collector, maxWait time.Duration) <-chan windowResult {
	ch := make(chan windowResult, 1)
	go func() {
		text, closed, err := c.Collect(ctx, maxWait)
		ch <- windowResult{text, closed, err}
	}()
	return ch
}

// collect runs one window that the test knows will not block for ever.
func collectNow(t *testing.T, c *Collector, maxWait time.Duration) windowResult {
	t.Helper()
	text, closed, err := c.Collect(t.Context(), maxWait)
	return windowResult{text, closed, err}
}

func pushString(t *testing.T, c *Collector, s string) {
	t.Helper()
	if err := c.Push(t.Context(), []byte(s)); err != nil {
		t.Fatalf("Push(%q): %v", s, err)
	}
}

func wantWindow(t *testing.T, got windowResult, text string, closed bool) {
	t.Helper()
	if got.err != nil || got.text != text || got.closed != closed {
		t.Fatalf("window = (%q, closed=%v, err=%v); want (%q, closed=%v, nil)",
			got.text, got.closed, got.err, text, closed)
	}
}

// drainAll collects windows until output is closed and returns their text.
func drainUntilClosed(t *testing.T, c *Collector, maxWait time.Duration) string {
	t.Helper()
	var b strings.Builder
	for range 1000 {
		w := collectNow(t, c, maxWait)
		if w.err != nil {
			t.Fatalf("Collect: %v", w.err)
		}
		b.WriteString(w.text)
		if w.closed {
			return b.String()
		}
	}
	t.Fatal("output never closed")
	return ""
}

func TestContract_O1_ChunkingNeverChangesText(t *testing.T) {
	streams := []string{
		"plain ascii line\r\n",
		"héllo wörld € 𝄞 日本語",
		"a\xe2\x82b\xe0\x80c\xed\xa0\x80d\xf0\x9f\x98",
		"\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xf4\x90\x80\x80\xc0\xaf\xff",
		"\xe2\x82\xac\xe2\x82\xac\xe2",
	}
	for _, s := range streams {
		want := refFinal([]byte(s))
		// Every pair of cut points, with a window after each push; the
		// windows alternate between maxWait 0 and a real wait.
		for i := 0; i <= len(s); i++ {
			for j := i; j <= len(s); j++ {
				ops := []step{
					{kind: stepPush, n: i}, {kind: stepCollect},
					{kind: stepPush, n: j - i}, {kind: stepCollect, wait: time.Millisecond},
					{kind: stepPush, n: len(s) - j}, {kind: stepClose},
				}
				synctest.Test(t, func(t *testing.T) {
					got := runSteps(t, []byte(s), 4, ops)
					if got != want {
						t.Fatalf("stream %q cut at %d,%d: got %q, want %q", s, i, j, got, want)
					}
				})
			}
		}
	}
}

func TestContract_O2_ReplacementPerMaximalSubpart(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		// The four examples in CONTRACTS.md.
		{"truncated 3-byte at EOF", "\xe2\x82", "\uFFFD"},
		{"overlong E0 80", "\xe0\x80", "\uFFFD\uFFFD"},
		{"surrogate ED A0 80", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"truncated between ascii", "a\xe2\x82b", "a\uFFFDb"},
		// More: where per-byte and per-run replacement differ.
		{"valid", "aé€😀", "aé€😀"},
		{"overlong C0 80", "\xc0\x80", "\uFFFD\uFFFD"},
		{"overlong C1 BF", "\xc1\xbf", "\uFFFD\uFFFD"},
		{"overlong F0 80 80 80", "\xf0\x80\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"above U+10FFFF F4 90", "\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"F5 lead", "\xf5\x80\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"FF", "\xff", "\uFFFD"},
		{"stray continuations", "\x80\xbf", "\uFFFD\uFFFD"},
		{"truncated 4-byte then ascii", "\xf0\x9f\x98A", "\uFFFDA"},
		{"truncated 4-byte at EOF", "\xf0\x9f\x98", "\uFFFD"},
		{"two truncated in a row", "\xe2\x82\xe2\x82", "\uFFFD\uFFFD"},
		{"truncated 2-byte before lead", "\xc3\xe2\x82\xac", "\uFFFD€"},
		{"lead then bad second", "\xe2\x28\xa1", "\uFFFD(\uFFFD"},
		{"surrogate pair", "\xed\xa0\x80\xed\xb0\x80", strings.Repeat("\uFFFD", 6)},
		{"last surrogate-free ED", "\xed\x9f\xbf", "\ud7ff"},
		{"max code point", "\xf4\x8f\xbf\xbf", "\U0010FFFF"},
		{"F4 8F truncated", "\xf4\x8f\xbf", "\uFFFD"},
		{"5-byte form", "\xf8\x88\x80\x80\x80", strings.Repeat("\uFFFD", 5)},
		{"NUL and DEL pass", "\x00\x7f", "\x00\x7f"},
		{"continuation after complete", "é\xa9", "é\uFFFD"},
		{"4 continuations after F1", "\xf1\x80\x80\x80\x80", "\U00040000\uFFFD"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if ref := refFinal([]byte(tc.in)); ref != tc.want {
				t.Fatalf("reference decoder gives %q, table says %q", ref, tc.want)
			}
			synctest.Test(t, func(t *testing.T) {
				c := NewCollector(64)
				pushString(t, c, tc.in)
				c.Close()
				if got := drainUntilClosed(t, c, 0); got != tc.want {
					t.Fatalf("collected %q, want %q", got, tc.want)
				}
			})
		})
	}
	t.Run("python3", func(t *testing.T) {
		inputs := make([][]byte, 0, len(cases)+len(interestingBytes))
		for _, tc := range cases {
			inputs = append(inputs, []byte(tc.in))
		}
		for _, b := range interestingBytes {
			for _, c := range interestingBytes {
				inputs = append(inputs, []byte{'<', b, c, 0x80, 0xBF, '>'})
			}
		}
		for i, want := range pythonDecode(t, inputs) {
			got, _, _ := decodeWindow(inputs[i], true, nil)
			if got != want {
				t.Errorf("% x: decoded %q, python3 %q", inputs[i], got, want)
			}
		}
	})
}

func TestContract_O3_OnlyCompletableSuffixCarried(t *testing.T) {
	cases := []struct {
		tail       string // pushed after "x"; output not closed
		carried    int    // bytes held back
		now        string // returned at once, after "x"
		completion string // completes a carried tail
		completed  string
	}{
		{"\xc2", 1, "", "\xa9", "©"},
		{"\xdf", 1, "", "\xbf", "\u07ff"},
		{"\xe0", 1, "", "\xa0\x80", "\u0800"},
		{"\xe0\xa0", 2, "", "\x80", "\u0800"},
		{"\xe0\xbf", 2, "", "\xbf", "\u0fff"},
		{"\xe1\x80", 2, "", "\x80", "\u1000"},
		{"\xec\xbf", 2, "", "\xbf", "\ucfff"},
		{"\xed\x80", 2, "", "\x80", "\ud000"},
		{"\xed\x9f", 2, "", "\xbf", "\ud7ff"},
		{"\xee\x80", 2, "", "\x80", "\ue000"},
		{"\xef\xbf", 2, "", "\xbd", "\ufffd"},
		{"\xf0\x90", 2, "", "\x80\x80", "\U00010000"},
		{"\xf0\x9f\x98", 3, "", "\x80", "😀"},
		{"\xf0\xbf\xbf", 3, "", "\xbf", "\U0003ffff"},
		{"\xf1\x80\x80", 3, "", "\x80", "\U00040000"},
		{"\xf3\xbf", 2, "", "\xbf\xbf", "\U000fffff"},
		{"\xf4\x80", 2, "", "\x80\x80", "\U00100000"},
		{"\xf4\x8f\xbf", 3, "", "\xbf", "\U0010ffff"},
		// Never carried: replaced in the window that sees them.
		{"\xc0", 0, "\uFFFD", "", ""},
		{"\xc1", 0, "\uFFFD", "", ""},
		{"\xf5", 0, "\uFFFD", "", ""},
		{"\xff", 0, "\uFFFD", "", ""},
		{"\x80", 0, "\uFFFD", "", ""},
		{"\xbf\xbf\xbf", 0, "\uFFFD\uFFFD\uFFFD", "", ""},
		{"\xe0\x80", 0, "\uFFFD\uFFFD", "", ""},
		{"\xe0\x9f", 0, "\uFFFD\uFFFD", "", ""},
		{"\xed\xa0", 0, "\uFFFD\uFFFD", "", ""},
		{"\xed\xbf", 0, "\uFFFD\uFFFD", "", ""},
		{"\xf0\x80", 0, "\uFFFD\uFFFD", "", ""},
		{"\xf0\x8f", 0, "\uFFFD\uFFFD", "", ""},
		{"\xf4\x90", 0, "\uFFFD\uFFFD", "", ""},
		{"\xf4\xbf\xbf", 0, "\uFFFD\uFFFD\uFFFD", "", ""},
		{"\xe2\x82A", 0, "\uFFFDA", "", ""},
		{"\xf0\x9f\x98\x80\x80", 0, "😀\uFFFD", "", ""},
		// Only the completable part of an invalid tail is carried.
		{"\xff\xe2\x82", 2, "\uFFFD", "\xac", "€"},
		{"\xe2\x82\xe2\x82", 2, "\uFFFD", "\xac", "€"},
	}
	for _, tc := range cases {
		t.Run(strings.Trim(strings.ReplaceAll(hexName(tc.tail), " ", "_"), "_"), func(t *testing.T) {
			_, refCarry := refDecode([]byte("x"+tc.tail), false)
			if len(refCarry) != tc.carried {
				t.Fatalf("reference carries %d bytes, table says %d", len(refCarry), tc.carried)
			}
			synctest.Test(t, func(t *testing.T) {
				c := NewCollector(64)
				pushString(t, c, "x"+tc.tail)
				// A prompt ending in garbage shows while the process is idle:
				// the window returns without output being closed.
				wantWindow(t, collectNow(t, c, 0), "x"+tc.now, false)
				if got := len(c.win); got != tc.carried {
					t.Fatalf("carry is % x (%d bytes), want %d bytes", c.win, got, tc.carried)
				}
				if tc.carried > 0 {
					pushString(t, c, tc.completion)
					wantWindow(t, collectNow(t, c, 0), tc.completed, false)
				}
				c.Close()
				wantWindow(t, collectNow(t, c, 0), "", true)
			})
		})
	}

	// A window holding only a carry keeps waiting instead of returning "".
	t.Run("carry only keeps waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "\xe2")
			res := startWindow(t.Context(), c, 0)
			synctest.Wait()
			pushString(t, c, "\x82")
			synctest.Wait()
			select {
			case w := <-res:
				t.Fatalf("window returned %+v with only a carry pending", w)
			default:
			}
			pushString(t, c, "\xac")
			wantWindow(t, <-res, "€", false)
		})
	})
}

func hexName(s string) string {
	var b strings.Builder
	for i := range len(s) {
		if s[i] < utf8.RuneSelf && s[i] > ' ' {
			b.WriteByte(s[i])
		} else {
			b.WriteString(" " + strings.ToUpper(hexByte(s[i])) + " ")
		}
	}
	return b.String()
}

func hexByte(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

func TestContract_O4_ClosedOutputFlushesCarryOnce(t *testing.T) {
	t.Run("carry becomes one U+FFFD in the next window", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "a\xf0\x9f\x98")
			wantWindow(t, collectNow(t, c, 0), "a", false)
			c.Close()
			c.Close() // idempotent
			wantWindow(t, collectNow(t, c, 0), "\uFFFD", true)
			for range 3 {
				wantWindow(t, collectNow(t, c, time.Second), "", true)
			}
		})
	})
	t.Run("close in the same window as the incomplete tail", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "a\xe2\x82")
			c.Close()
			wantWindow(t, collectNow(t, c, 0), "a\uFFFD", true)
			wantWindow(t, collectNow(t, c, 0), "", true)
		})
	})
	t.Run("close while a window waits on a carry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "a\xe2\x82")
			wantWindow(t, collectNow(t, c, 0), "a", false)
			res := startWindow(t.Context(), c, time.Second)
			synctest.Wait()
			start := time.Now()
			c.Close()
			wantWindow(t, <-res, "\uFFFD", true)
			if d := time.Since(start); d != 0 {
				t.Errorf("closing window took %v; nothing can follow Close, so it should not wait", d)
			}
		})
	})
	t.Run("close without carry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			res := startWindow(t.Context(), c, time.Second)
			synctest.Wait()
			c.Close()
			wantWindow(t, <-res, "", true)
			wantWindow(t, collectNow(t, c, 0), "", true)
		})
	})
	t.Run("cancelled window after close does not count as flushed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := NewCollector(64)
			pushString(t, c, "a\xe2")
			wantWindow(t, collectNow(t, c, 0), "a", false)
			c.Close()
			ctx, cancel := context.WithCancelCause(t.Context())
			cancel(errTestCancel)
			if _, closed, err := c.Collect(ctx, 0); !errors.Is(err, errTestCancel) || closed {
				t.Fatalf("cancelled Collect = closed %v, err %v; want cancellation, not closed", closed, err)
			}
			wantWindow(t, collectNow(t, c, 0), "\uFFFD", true)
		})
	})
}

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

func TestPushAfterClosePanics(t *testing.T) {
	c := NewCollector(8)
	c.Close()
	defer func() {
		if recover() == nil {
			t.Fatal("Push after Close did not panic")
		}
	}()
	_ = c.Push(t.Context(), []byte("x")) // Best effort: it must panic before returning.
}

// After a flood the collector's buffers shrink back: an idle pane does not
// keep a flood's worth of memory. During the flood they stay as grown.
func TestCollectorShrinksAfterFlood(t *testing.T) {
	c := NewCollector(DefaultQueueBytes)
	ctx := context.Background()
	big := strings.Repeat("x", DefaultQueueBytes/2)
	for range 2 {
		if err := c.Push(ctx, []byte(big)); err != nil {
			t.Fatal(err)
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || len(text) != len(big) {
			t.Fatalf("flood window: %d bytes, %v", len(text), err)
		}
	}
	if cap(c.win) < len(big) {
		t.Fatalf("the window's buffer shrank during the flood (cap %d)", cap(c.win))
	}
	for range 2 { // both buffers, which the windows swap
		if err := c.Push(ctx, []byte("echo\r\n")); err != nil {
			t.Fatal(err)
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || text != "echo\r\n" {
			t.Fatalf("small window: %q, %v", text, err)
		}
	}
	c.mu.Lock()
	q := cap(c.queue)
	c.mu.Unlock()
	if cap(c.win) > keepBuffer || q > keepBuffer || cap(c.scratch) > keepBuffer {
		t.Fatalf("after the flood the buffers keep %d, %d and %d bytes, more than %d", cap(c.win), q, cap(c.scratch), keepBuffer)
	}
}

// A flood whose windows are now large, now small (the consumer catching
// up) does not grow its buffers again from nothing after each small
// window: the buffers a small window lets go are taken up by the next
// large one. Cat of 20 MB through a pane allocated as many bytes in Push
// as it delivered before; the text of each window is all a window
// should allocate, and the queue's growth to keepBuffer.
func TestCollectorFloodReusesBuffers(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection empties the pool
	c := NewCollector(DefaultQueueBytes)
	ctx := context.Background()
	read := bytes.Repeat([]byte("x"), 4<<10)
	const reads, cycles = 32, 40
	cycle := func() {
		for range reads {
			if err := c.Push(ctx, read); err != nil {
				t.Fatal(err)
			}
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || len(text) != reads*len(read) {
			t.Fatalf("flood window: %d bytes, %v", len(text), err)
		}
		if err := c.Push(ctx, []byte("$ ")); err != nil {
			t.Fatal(err)
		}
		if text, _, err := c.Collect(ctx, 0); err != nil || text != "$ " {
			t.Fatalf("small window: %q, %v", text, err)
		}
	}
	cycle() // the first flood grows them
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range cycles {
		cycle()
	}
	runtime.ReadMemStats(&after)
	text := uint64(cycles * reads * len(read))
	// Each flood's text, a queue grown to a read, and the buffers the
	// race detector drops (a quarter of what goes into a sync.Pool):
	// some twice the text with it, 1.2 times without. Growing again
	// from nothing took 4.7 times.
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d floods of %d bytes allocated %.1f times their text", cycles, reads*len(read), float64(got)/float64(text))
	if got > 3*text {
		t.Errorf("%d floods of %d bytes allocated %d bytes, more than three times their text", cycles, reads*len(read), got)
	}
}

// A queue that grows from a read to its bound with no flood's buffer to
// take (the pool empty) doubles: append grows a large slice by a
// quarter, fourteen steps from 8 to 256 KiB, allocating five times what
// the queue came to hold (15 allocations here, 9 doubling).
func TestCollectorQueueGrowsByDoubling(t *testing.T) {
	runtime.GC()
	runtime.GC() // the pool keeps what it holds for two collections
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	c := NewCollector(DefaultQueueBytes)
	read := bytes.Repeat([]byte("x"), 4<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range DefaultQueueBytes / len(read) {
		if err := c.Push(context.Background(), read); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > 12 {
		t.Errorf("a queue grown to %d bytes took %d allocations, more than 12", DefaultQueueBytes, n)
	}
}
