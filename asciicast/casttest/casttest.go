// Package casttest writes asciicast recordings for tests, byte for byte
// as asciicast.Writer writes them, so that a test's recording is one a
// real recording could be. It owns nothing else and is imported only by
// tests.
package casttest

import (
	"bytes"
	"testing"
	"time"

	"github.com/sandmux/sandmux/asciicast"
)

// Event is one event of a generated recording, at its time from the
// start.
type Event struct {
	At         time.Duration
	Kind, Data string
}

// Bytes is the recording of a cols×rows terminal that holds events.
func Bytes(t testing.TB, cols, rows int, events ...Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := asciicast.NewWriter(&buf, asciicast.Header{Width: cols, Height: rows}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		w.WriteEvent(e.At, e.Kind, e.Data)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
