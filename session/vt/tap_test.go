package vt

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// logTap records what a tap sees as one string: keyframes as K, output
// as it came, resizes as R<cols>x<rows>.
type logTap struct {
	mu  sync.Mutex
	log strings.Builder
	kfs int
}

func (l *logTap) Keyframe(_ time.Time, cols, rows int, kf []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.kfs++
	fmt.Fprintf(&l.log, "K%dx%d", cols, rows)
}
func (l *logTap) Output(_ time.Time, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.WriteString(text)
}
func (l *logTap) Resize(_ time.Time, cols, rows int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.log, "R%dx%d", cols, rows)
}

type wantingTap struct{ logTap }

func (w *wantingTap) WantKeyframe() bool { return true }

// TestTapSeesStreamInOrder: a tap gets a keyframe first, then exactly the
// text written, with resizes in their place (a width change, which
// reflows, followed by a keyframe), and nothing after untap.
func TestTapSeesStreamInOrder(t *testing.T) {
	s, _ := newScreen(t, 20, 5)
	s.Write("before")
	var l logTap
	untap := s.Tap(&l)
	s.Write("one\x1b[3")
	s.Resize(30, 6)
	s.Write("1mtwo")
	s.Resize(30, 6) // no change: no event
	big := strings.Repeat("x", 3*SliceFor(6)+7)
	s.Write(big)
	untap()
	untap()
	s.Write("after")
	if got, want := l.log.String(), "K20x5one\x1b[3R30x6K30x6"+"1mtwo"+big; got != want {
		t.Fatalf("tap saw %.80q…, want %.80q…", got, want)
	}
}

// TestTapKeyframeOnRequest: a KeyframeWanter gets a keyframe after each
// slice it asks for, and the keyframe replays to the screen.
func TestTapKeyframeOnRequest(t *testing.T) {
	s, _ := newScreen(t, 20, 5)
	w := &wantingTap{}
	defer s.Tap(w)()
	s.Write("\x1b[31mred")
	s.Resize(22, 5)
	if w.kfs != 3 {
		t.Fatalf("%d keyframes, want 3 (install, after the write, after the resize)", w.kfs)
	}
	b, _ := newScreen(t, 22, 5)
	b.Write(string(s.Keyframe(nil)))
	if d := screenDiff(s, b); d != "" {
		t.Fatal(d)
	}
}

// replayTap keeps what a tap sees, in order, to replay it.
type replayTap struct {
	events []func(*Screen)
	cols   int
	rows   int
}

func (r *replayTap) Keyframe(_ time.Time, cols, rows int, kf []byte) {
	if r.events == nil {
		r.cols, r.rows = cols, rows
	}
	k := string(kf)
	r.events = append(r.events, func(s *Screen) { s.Write(k) })
}
func (r *replayTap) Output(_ time.Time, text string) {
	r.events = append(r.events, func(s *Screen) { s.Write(text) })
}
func (r *replayTap) Resize(_ time.Time, cols, rows int) {
	r.events = append(r.events, func(s *Screen) { s.Resize(cols, rows) })
}

// A recording spanning resizes that reflow replays to the same screen:
// the keyframe after each reflow carries what the replay could not
// reflow the same (it has no scrollback).
func TestTapReplaySpansReflow(t *testing.T) {
	s, _ := newScreen(t, 30, 6)
	for range 3 { // in the scrollback when the tap starts
		s.Write("before the tap, " + strings.Repeat("long 日本語 line ", 6) + "\r\n")
	}
	var r replayTap
	defer s.Tap(&r)()
	steps := []func(){
		func() { s.Write("\x1b[32m" + strings.Repeat("green 中文 ", 8) + "\x1b[m\r\n$ ") },
		func() { s.Resize(12, 6) },
		func() { s.Write("typed") },
		func() { s.Resize(40, 8) },
		func() { s.Resize(17, 5) },
		func() { s.Write("\r\n" + strings.Repeat("x", 50)) },
		func() { s.Resize(30, 6) },
	}
	for i, step := range steps {
		step()
		b, _ := newScreen(t, r.cols, r.rows)
		for _, e := range r.events {
			e(b)
		}
		if d := screenDiff(s, b); d != "" {
			t.Fatalf("after step %d the replay differs: %s", i, d)
		}
	}
}
