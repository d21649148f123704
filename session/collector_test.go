package session

import (
	"context"
	"errors"
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
