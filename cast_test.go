package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/sandmux/sandmux/asciicast"
)

// castEvent is one event of a generated recording.
type castEvent struct {
	at         time.Duration
	kind, data string
}

// castBytes writes a recording as the Writer writes one.
func castBytes(t *testing.T, cols, rows int, events ...castEvent) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := asciicast.NewWriter(&buf, asciicast.Header{Width: cols, Height: rows}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		w.WriteEvent(e.at, e.kind, e.data)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
