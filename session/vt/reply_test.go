package vt

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// waitReplies waits (in a synctest bubble) until the reply goroutine wrote
// everything queued.
func replies(t *testing.T, in string) string {
	t.Helper()
	var got string
	synctest.Test(t, func(t *testing.T) {
		s, rb := newScreen(t, 20, 5)
		s.Write(in)
		synctest.Wait()
		got = rb.String()
		s.Close()
	})
	return got
}

func TestReplies(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"DA1", "\x1b[c", replyDA1},
		{"DA1 zero", "\x1b[0c", replyDA1},
		{"DECID", "\x1bZ", replyDA1},
		{"DA2", "\x1b[>c", replyDA2},
		{"XTVERSION", "\x1b[>0q", replyXTVERSON},
		{"CPR", "ab\r\nc\x1b[6n", "\x1b[2;2R"},
		{"DSR", "\x1b[5n", "\x1b[0n"},
		{"ordered", "\x1b[6n\x1b[c\x1b[3;4H\x1b[6n", "\x1b[1;1R" + replyDA1 + "\x1b[3;4R"},
		{"DECRQM 2026 reset", "\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"DECRQM 2004 set", "\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"DECRQM unknown", "\x1b[?2027$p", "\x1b[?2027;0$y"},
		{"DECRQM IRM", "\x1b[4h\x1b[4$p", "\x1b[4;1$y"},
		{"OSC 11 BEL", "\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x07"},
		{"OSC 10;? ST", "\x1b]10;?;?\x1b\\", "\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"OSC 4", "\x1b]4;1;?;196;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;196;rgb:ffff/0000/0000\x07"},
		{"size", "\x1b[18t", "\x1b[8;5;20t"},
		{"kitty query", "\x1b[?u", "\x1b[?0u"},
		{"split query", "\x1b[", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := replies(t, c.in); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// A child that floods queries without reading: the queue drops, Write never
// waits for the writer.
func TestReplyQueueDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &blockingWriter{release: make(chan struct{})}
		s := New(10, 2, WithReplies(w), WithReplyQueue(4))
		s.Write(strings.Repeat("\x1b[6n", 100))
		synctest.Wait()
		if d := s.DroppedReplies(); d < 90 {
			t.Fatalf("dropped %d, want most of 100", d)
		}
		close(w.release)
		s.Close()
	})
}

// The reply pump runs while replies are queued, not for the pane's
// life: a program asks at its start and seldom after. A reply after it
// ended starts it again, and every reply is written, in order.
func TestReplyPumpEndsWhenEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, rb := newScreen(t, 20, 5)
		defer s.Close()
		running := func() bool {
			s.replies.mu.Lock()
			defer s.replies.mu.Unlock()
			return s.replies.running
		}
		s.Write("\x1b[c\x1b[6n")
		synctest.Wait()
		if running() {
			t.Fatal("the reply pump still runs with nothing queued")
		}
		s.Write("\x1b[5n")
		synctest.Wait()
		if got, want := rb.String(), replyDA1+"\x1b[1;1R\x1b[0n"; got != want || running() {
			t.Fatalf("replies %q (pump running: %v), want %q and the pump ended", got, running(), want)
		}
	})
}

type blockingWriter struct{ release chan struct{} }

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

func TestCloseIdempotent(t *testing.T) {
	s := New(10, 2)
	s.Close()
	s.Close()
	s.Write("after close")
}

func TestSyncOutputHoldsDirty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(10, 2, WithSyncTimeout(time.Second))
		defer s.Close()
		drain := func() bool {
			select {
			case <-s.Dirty():
				return true
			default:
				return false
			}
		}
		s.Write("a")
		if !drain() {
			t.Fatal("plain write: no dirty signal")
		}
		s.Write("\x1b[?2026hb")
		s.Write("c")
		if drain() {
			t.Fatal("dirty during a synchronized update")
		}
		s.Write("\x1b[?2026l")
		if !drain() {
			t.Fatal("no dirty at the end of the update")
		}
		// An update that never ends is released by the timeout.
		s.Write("\x1b[?2026hd")
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		if drain() {
			t.Fatal("dirty before the timeout")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !drain() {
			t.Fatal("no dirty after the timeout")
		}
		s.Write("e")
		if !drain() {
			t.Fatal("writes after the timeout hold the signal")
		}
		// A new update after the expired one holds again.
		s.Write("\x1b[?2026l\x1b[?2026h")
		drain()
		s.Write("f")
		if drain() {
			t.Fatal("new update after a timeout not held")
		}
		if got := text(s); !strings.HasPrefix(got, "abcdef") {
			t.Fatalf("screen %q", got)
		}
	})
}
