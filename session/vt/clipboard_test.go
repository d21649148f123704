package vt

import (
	"strings"
	"testing"
)

// OSC 52 writes are kept for the UI to pass on, the latest one, taken
// once; reads are never answered; anything but base64 is dropped; long
// writes fit, overlong ones are dropped whole.
func TestClipboardWrites(t *testing.T) {
	s, replies := newScreen(t, 10, 2)
	if _, ok := s.TakeClipboard(); ok {
		t.Fatal("a clipboard write before any was sent")
	}
	s.Write("\x1b]52;c;aGVsbG8=\x07a\x1b]52;;d29ybGQ=\x1b\\b")
	c, ok := s.TakeClipboard()
	if !ok || c != (Clipboard{Selection: "", Data: "d29ybGQ="}) {
		t.Fatalf("got %+v %v", c, ok)
	}
	if _, ok := s.TakeClipboard(); ok {
		t.Fatal("taken twice")
	}
	s.Write("\x1b]52;c;?\x07\x1b]52;c;not base64!\x07\x1b]52;C;aGk=\x07")
	if c, ok := s.TakeClipboard(); ok {
		t.Fatalf("kept a read or a bad write: %+v", c)
	}
	if got := lines(s)[0]; got != "ab" || replies.String() != "" {
		t.Fatalf("screen %q, replies %q", got, replies.String())
	}
	long := strings.Repeat("QUFB", 100000) // 400 KB of base64
	s.Write("\x1b]52;c;" + long + "\x07")
	if c, ok := s.TakeClipboard(); !ok || c.Data != long {
		t.Fatalf("a long write was lost (%d bytes kept)", len(c.Data))
	}
	s.Write("\x1b]52;c;" + strings.Repeat("A", maxClipboard+1) + "\x07z")
	if _, ok := s.TakeClipboard(); ok || !strings.HasSuffix(lines(s)[0], "z") {
		t.Fatal("an overlong write was kept, or what followed it lost")
	}
}

// The cursor's shape (DECSCUSR) and colour (OSC 12) are kept for the UI
// to show the focused pane's cursor as the child asked; a colour that is
// not a plain colour name or value is dropped, OSC 112 resets it.
func TestCursorShapeAndColour(t *testing.T) {
	s, _ := newScreen(t, 10, 2)
	s.Write("\x1b[5 q\x1b]12;#ff8800\x07")
	if c := frame(s).Cursor; c.Shape != CursorBlinkingBar || c.Color != "#ff8800" {
		t.Fatalf("cursor %+v", c)
	}
	s.Write("\x1b]12;red\x1b[31m\x07\x1b[2 q")
	if c := frame(s).Cursor; c.Shape != CursorSteadyBlock || c.Color != "#ff8800" {
		t.Fatalf("cursor %+v", c)
	}
	s.Write("\x1b]112\x07")
	if c := frame(s).Cursor; c.Color != "" {
		t.Fatalf("OSC 112 left %q", c.Color)
	}
}
