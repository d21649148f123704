package vt

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// The pens the bulk path remembers keep copies of their sequences: a
// sequence is a slice of the window's text, and a memo or cache key made
// of it kept the whole window (up to the collector's 256 KiB) alive for
// as long as the pane lived.
func TestPenMemoKeepsNoWindow(t *testing.T) {
	s := New(80, 24, WithScrollback(100))
	defer s.Close()
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "\x1b[%dm%08d\x1b[0m log line\r\n", 31+i%7, i)
	}
	window := b.String()
	s.Write(window)
	if s.bulks == 0 {
		t.Fatal("the window did not take the bulk path; the test shows nothing")
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(window)))
	hi := lo + uintptr(len(window))
	inWindow := func(k penKey) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(k.sgr)))
		return k.sgr != "" && p >= lo && p < hi
	}
	if len(s.penCache) == 0 {
		t.Fatal("the bulk path cached no pen")
	}
	for k := range s.penCache {
		if inWindow(k) {
			t.Errorf("the pen cache keeps %q as a slice of the window", k.sgr)
		}
	}
	for _, m := range s.penRecent {
		if inWindow(m.k) {
			t.Errorf("the pen memo keeps %q as a slice of the window", m.k.sgr)
		}
	}
}
