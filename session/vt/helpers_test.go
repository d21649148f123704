package vt

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// newScreen returns a Screen closed at the end of the test, with replies
// collected.
func newScreen(t testing.TB, cols, rows int, opts ...Option) (*Screen, *syncBuffer) {
	t.Helper()
	var rb syncBuffer
	s := New(cols, rows, append([]Option{WithReplies(&rb)}, opts...)...)
	t.Cleanup(s.Close)
	return s, &rb
}

// syncBuffer is a goroutine-safe bytes.Buffer for replies.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// text returns the screen as plain text.
func text(s *Screen) string {
	var f Frame
	s.Snapshot(&f)
	return string(RenderText(nil, &f))
}

// lines returns the screen rows as plain text, trailing empty rows dropped.
func lines(s *Screen) []string {
	return strings.Split(strings.TrimRight(text(s), "\n"), "\n")
}

func frame(s *Screen) *Frame {
	var f Frame
	s.Snapshot(&f)
	return &f
}
