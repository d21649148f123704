package vt

import (
	"strings"
	"testing"
)

// FuzzReflow writes any stream, then takes the screen through any sizes:
// no panic, the cursor and every scrollback line inside the screen's
// width, and on the main screen the text of the joined lines (scrollback
// and screen, as RenderJoined gives it) never changes, but when the
// screen gets shorter: the rows below the cursor go then, as in tmux.
func FuzzReflow(f *testing.F) {
	for _, seed := range []struct {
		text  string
		sizes []byte
	}{
		{"$ x\r\n1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\r\n$ ", []byte{8, 4, 30, 4, 3, 2, 38, 9}},
		{"ab日本語\x1b[31mred\x1b[m日本e\u0301👨\u200d👩\u200d👧\r\n\x1b[44mbg\x1b[K\r\nend", []byte{3, 5, 1, 1, 20, 3}},
		{strings.Repeat("0123456789", 30) + "\x1b[5A\x1b[3Cover", []byte{7, 6, 15, 2, 40, 9}},
		{"main line that is long enough\r\n\x1b[?1049halt\x1b[?1049l", []byte{5, 5, 25, 3}},
		{"x\x1b[?1049h" + strings.Repeat("alt ", 20), []byte{4, 4, 30, 6}},
		{"\x1b[3;5r\x1b[?6h" + strings.Repeat("中", 40) + "\x1b[?7l" + strings.Repeat("z", 50), []byte{9, 1, 2, 8}},
	} {
		f.Add(seed.text, seed.sizes)
	}
	f.Fuzz(func(t *testing.T, text string, sizes []byte) {
		if len(text) > 4096 || len(sizes) > 16 {
			return
		}
		s, _ := newScreen(t, 20, 6, WithScrollback(1<<16))
		s.Write(strings.ToValidUTF8(text, "\uFFFD"))
		before := joinedText(s)
		for i := 0; i+1 < len(sizes); i += 2 {
			cols, rows := 2+int(sizes[i])%39, 1+int(sizes[i+1])%10
			_, was := s.Size()
			s.Resize(cols, rows)
			checkInside(t, s)
			after := joinedText(s)
			if before != "" && after != before && rows >= was {
				t.Fatalf("at %dx%d the joined text changed:\n%q\nwas\n%q", cols, rows, after, before)
			}
			before = after
		}
		s.Write("\x1b[?1049l")
		checkInside(t, s)
	})
}

// joinedText is the joined text of the main screen, "" on the alternate
// one (it is cut, not reflowed).
func joinedText(s *Screen) string {
	if s.Modes().AltScreen {
		return ""
	}
	var f Frame
	_, rows := s.Size()
	s.SnapshotRange(&f, 0, s.ScrollbackLen()+rows)
	return strings.TrimRight(string(RenderJoined(nil, &f)), "\n ")
}

// checkInside fails when the cursor or a cell lies outside the screen.
func checkInside(t *testing.T, s *Screen) {
	t.Helper()
	f := frame(s)
	cols, rows := s.Size()
	if f.Cols != cols || f.Rows != rows || len(f.Cells) != cols*rows {
		t.Fatalf("frame %dx%d with %d cells for a %dx%d screen", f.Cols, f.Rows, len(f.Cells), cols, rows)
	}
	if c := f.Cursor; c.X < 0 || c.X >= cols || c.Y < 0 || c.Y >= rows {
		t.Fatalf("cursor at %d,%d outside %dx%d", c.X, c.Y, cols, rows)
	}
	for y := range rows {
		row := f.Row(y)
		if last := row[cols-1]; last.Flags&FlagWide != 0 {
			t.Fatalf("row %d ends with half a wide character", y)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.sb.len() {
		if w := s.sb.line(i).width(); w > cols && !s.f.st.modes.AltScreen {
			t.Fatalf("scrollback line %d is %d cells wide on a screen of %d", i, w, cols)
		}
	}
}
