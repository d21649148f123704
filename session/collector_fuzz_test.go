package session

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"
)

// A script of producer and consumer steps, run inside a synctest bubble with
// synctest.Wait after every step, so each script is one exact interleaving.

type stepKind uint8

const (
	stepPush    stepKind = iota // the producer pushes the next n bytes of the stream
	stepClose                   // the producer pushes the rest, then closes output
	stepCollect                 // start a window with maxWait wait (or await the running one)
	stepAwait                   // wait for the running window, giving up after a fake minute
	stepCancel                  // cancel the running window and take its result
)

type step struct {
	kind stepKind
	n    int
	wait time.Duration
}

// decodePlan turns fuzz bytes into a capacity and a script.
func decodePlan(plan []byte) (capacity int, ops []step) {
	capacity = 16
	if len(plan) > 0 {
		capacity = 1 + int(plan[0])%32
		plan = plan[1:]
	}
	for _, b := range plan[:min(len(plan), 128)] {
		arg := int(b >> 3)
		switch b % 8 {
		case 0, 1, 2:
			ops = append(ops, step{kind: stepPush, n: 1 + arg%16})
		case 3:
			ops = append(ops, step{kind: stepCollect})
		case 4:
			ops = append(ops, step{kind: stepCollect, wait: time.Duration(1+arg%4) * time.Millisecond})
		case 5:
			ops = append(ops, step{kind: stepAwait})
		case 6:
			ops = append(ops, step{kind: stepCancel})
		case 7:
			ops = append(ops, step{kind: stepClose})
		}
	}
	return capacity, ops
}

// runSteps plays steps against a collector fed with data, then closes output and
// drains it, checking the contracts after every window. It returns the
// concatenated text. It must run inside a synctest bubble; every wait is
// bounded in fake time, so a stuck collector fails instead of stalling.
func runSteps(t *testing.T, data []byte, capacity int, ops []step) string {
	t.Helper()
	c := NewCollector(capacity)
	want := refFinal(data)

	// The producer goroutine; a nil command means Close.
	cmds := make(chan []byte, len(data)+1)
	producerDone := make(chan struct{})
	go func() {
		defer close(producerDone)
		for p := range cmds {
			if p == nil {
				c.Close()
				continue
			}
			if err := c.Push(context.Background(), p); err != nil {
				t.Errorf("Push: %v", err)
			}
		}
	}()
	sent, closeSent, maxChunk := 0, false, 0
	sendPush := func(n int) {
		n = min(n, len(data)-sent)
		if closeSent || n <= 0 {
			return
		}
		cmds <- data[sent : sent+n]
		sent += n
		maxChunk = max(maxChunk, n)
	}
	sendClose := func() {
		if !closeSent {
			sendPush(len(data) - sent)
			cmds <- nil
			closeSent = true
		}
	}

	var (
		got        strings.Builder
		closedSeen bool
		running    <-chan windowResult
		cancel     context.CancelCauseFunc
	)
	start := func(maxWait time.Duration) {
		var ctx context.Context
		ctx, cancel = context.WithCancelCause(context.Background())
		running = startWindow(ctx, c, maxWait)
	}
	finish := func(w windowResult, cancelled bool) {
		running = nil
		cancel(nil)
		switch {
		case w.err != nil:
			if !cancelled || !errors.Is(w.err, errTestCancel) || w.text != "" || w.closed {
				t.Errorf("window = (%q, %v, %v); only a cancelled window may fail, with its cause and nothing else", w.text, w.closed, w.err)
			}
		case closedSeen:
			if w.text != "" || !w.closed {
				t.Errorf("window after closed = (%q, %v); want (\"\", true)", w.text, w.closed)
			}
		default:
			if w.text == "" && !w.closed {
				t.Errorf("empty window with output open")
			}
			if !utf8.ValidString(w.text) {
				t.Errorf("window text %q is not valid UTF-8", w.text)
			}
			got.WriteString(w.text)
			if !strings.HasPrefix(want, got.String()) {
				t.Errorf("O1: text so far %q is not a prefix of the whole-stream decoding %q", got.String(), want)
			}
			if w.closed {
				closedSeen = true
				if !closeSent {
					t.Errorf("window reported closed before Close")
				}
			}
		}
		// The consumer is idle, so its carry can be inspected (O3).
		if len(c.win) > 3 {
			t.Errorf("O3: carry % x is longer than 3 bytes", c.win)
		} else if text, carry := refDecode(c.win, false); text != "" || !bytes.Equal(carry, c.win) {
			t.Errorf("O3: carry % x is not a valid incomplete sequence", c.win)
		}
	}
	await := func(limit time.Duration) bool {
		select {
		case w := <-running:
			finish(w, false)
			return true
		case <-time.After(limit):
			return false
		}
	}
	checkBound := func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		// A cancelled window may put its carry back into the queue.
		if n := len(c.queue) + c.held; n > capacity+maxChunk+3 {
			t.Errorf("O8: collector holds %d bytes; capacity %d, largest chunk %d", n, capacity, maxChunk)
		}
	}

	for _, o := range ops {
		if t.Failed() {
			break
		}
		switch o.kind {
		case stepPush:
			sendPush(o.n)
		case stepClose:
			sendClose()
		case stepCollect:
			if running != nil {
				await(time.Minute)
			} else {
				start(o.wait)
			}
		case stepAwait:
			if running != nil {
				await(time.Minute)
			}
		case stepCancel:
			if running != nil {
				cancel(errTestCancel)
				finish(<-running, true)
			}
		}
		synctest.Wait()
		checkBound()
	}

	// Close output and drain it; a real consumer loops like this.
	sendClose()
	for !closedSeen {
		if running == nil {
			start(0)
		}
		if !await(time.Hour) {
			t.Errorf("collector stalled: no window an hour after output closed")
			cancel(errTestCancel)
			<-running
			break
		}
	}
	close(cmds)
	<-producerDone
	return got.String()
}

func FuzzCollector(f *testing.F) {
	seeds := []struct {
		data string
		plan []byte
	}{
		{"héllo wörld € 𝄞", []byte{4, 0, 3, 0, 3, 7, 3}},
		{"a\xe2\x82b\xe0\x80c\xed\xa0\x80d", []byte{0, 0, 4, 8, 6, 3, 16, 5}},
		{"\xf0\x9f\x98\x80\xf0\x9f\x98", []byte{2, 0, 3, 0, 3, 6, 0, 4, 5, 7}},
		{"日本語テキスト\xff\xfe", []byte{1, 8, 12, 16, 20, 3, 3, 3, 6}},
		{"\xe2\x82\xac", []byte{0, 0, 3, 0, 6, 0, 3}},
		{"abc\xc3", []byte{31, 3, 0, 12, 7, 5}},
		{strings.Repeat("x€😀\x80", 40), []byte{3, 120, 4, 120, 120, 6, 120, 3, 120, 7, 3}},
	}
	for _, s := range seeds {
		f.Add([]byte(s.data), s.plan)
	}
	f.Fuzz(func(t *testing.T, data, plan []byte) {
		// Chunking bugs show in short streams; long ones only slow the
		// fuzzer down, most of all while it minimises new inputs.
		data = data[:min(len(data), 1024)]
		want := refFinal(data)
		// O2 on the whole stream: the production decoder alone agrees with
		// the reference.
		if got, _, _ := decodeWindow(data, true, nil); got != want {
			t.Fatalf("decodeWindow(% x) = %q, reference %q", data, got, want)
		}
		capacity, ops := decodePlan(plan)
		synctest.Test(t, func(t *testing.T) {
			// O1: however it was split, the text is the whole stream's.
			if got := runSteps(t, data, capacity, ops); got != want {
				t.Fatalf("O1: collected %q, whole-stream decoding %q", got, want)
			}
		})
	})
}

// FuzzCollectorTake: a reader that settles some reads itself (Take) and
// hands the others to the consumer (Push), as a session's does, gets the
// whole stream's text however the stream is split into reads and between
// the two (O1), valid UTF-8 and a carry of at most 3 bytes from every Take
// (O3), and the carry flushed once by the window that sees output closed
// (O4).
func FuzzCollectorTake(f *testing.F) {
	f.Add([]byte("héllo wörld € 𝄞"), []byte{1, 2, 3})
	f.Add([]byte("a\xe2\x82b\xe0\x80c\xed\xa0\x80d"), []byte{2, 0x81, 1, 1})
	f.Add([]byte("abc\xc3"), []byte{4})
	f.Add([]byte("\xf0\x9f\x98\x80\xf0\x9f\x98"), []byte{1, 0x81, 1, 0x81, 1})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		data = data[:min(len(data), 1024)]
		want := refFinal(data)
		c := NewCollector(1 << 20)
		var got strings.Builder
		for rest, i := data, 0; len(rest) > 0; i++ {
			n, push := len(rest), false
			if i < len(cuts) {
				n, push = min(n, 1+int(cuts[i]&0x7f)%16), cuts[i]&0x80 != 0
			}
			if push {
				if err := c.Push(context.Background(), rest[:n]); err != nil {
					t.Fatalf("Push: %v", err)
				}
			} else {
				text := c.Take(rest[:n])
				if !utf8.ValidString(text) || len(c.win) > 3 {
					t.Fatalf("Take = %q, carry % x; want valid text, a carry of 3 bytes at most", text, c.win)
				}
				got.WriteString(text)
			}
			rest = rest[n:]
		}
		c.Close()
		text, closed, err := c.Collect(context.Background(), 0)
		if err != nil || !closed {
			t.Fatalf("the window after the close: closed %v, %v; want closed", closed, err)
		}
		if got.WriteString(text); got.String() != want {
			t.Fatalf("O1: delivered %q, whole-stream decoding %q", got.String(), want)
		}
		if text, closed, _ := c.Collect(context.Background(), 0); text != "" || !closed {
			t.Fatalf("O4: a window after the last = %q, %v; want nothing, closed", text, closed)
		}
	})
}
