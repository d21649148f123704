package vt

import (
	"strings"
	"testing"
)

// joined returns the scrollback and the screen as logical lines (rows
// joined while they wrapped), trailing blanks and empty lines dropped.
func joined(s *Screen) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	var out []string
	var cur strings.Builder
	add := func(row []Cell, wrapped bool) {
		for i := range row {
			if row[i].Flags&FlagPlaceholder == 0 {
				cur.WriteString(row[i].String())
			}
		}
		if !wrapped {
			out = append(out, strings.TrimRight(cur.String(), " "))
			cur.Reset()
		}
	}
	for i := range s.sb.len() {
		l := s.sb.line(i)
		row := make([]Cell, l.width())
		l.cells(s.sb.styles, row)
		add(row, l.wrapped)
	}
	row := make([]Cell, s.cols)
	for y := range s.rows {
		s.readRowInto(y, row)
		add(row, s.term.Cell(s.cols-1, y).Mode&vtWrap != 0 && y < s.rows-1)
	}
	if cur.Len() > 0 {
		out = append(out, strings.TrimRight(cur.String(), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// A long line narrowed and widened again is whole: rows that wrapped are
// joined and wrapped at the new width, lines pushed off the top go to the
// scrollback and come back, and the cursor stays after the last character.
func TestReflowKeepsLongLine(t *testing.T) {
	s, _ := newScreen(t, 20, 4)
	long := "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
	s.Write("$ x\r\n" + long + "\r\n$ ")
	for _, w := range []int{10, 20, 7, 5, 40, 20} {
		s.Resize(w, 4)
		if got := joined(s); strings.Join(got, "|") != "$ x|"+long+"|$" {
			t.Fatalf("at width %d: %q", w, got)
		}
		f := frame(s)
		if f.Cursor.X != 2 || lineAt(s, f.Cursor.Y) != "$" {
			t.Fatalf("at width %d the cursor is at %d,%d on %q\n%s", w, f.Cursor.X, f.Cursor.Y, lineAt(s, f.Cursor.Y), text(s))
		}
	}
}

// Narrowing and widening back gives the screen it had, the scrollback
// empty again.
func TestReflowRoundTrip(t *testing.T) {
	s, _ := newScreen(t, 20, 4)
	s.Write("$ x\r\n1,2,3,4,5,6,7,8,9,10,11,12\r\n$ ")
	before := text(s)
	s.Resize(6, 4)
	if s.ScrollbackLen() == 0 {
		t.Fatalf("narrowing pushed nothing into the scrollback:\n%s", text(s))
	}
	s.Resize(20, 4)
	if got := text(s); got != before || s.ScrollbackLen() != 0 {
		t.Fatalf("back at 20 columns: %q (scrollback %d), want %q", got, s.ScrollbackLen(), before)
	}
}

func lineAt(s *Screen, y int) string {
	return strings.TrimRight(strings.Split(text(s), "\n")[y], " ")
}

// Wide characters never split, styles follow their characters.
func TestReflowWideAndStyles(t *testing.T) {
	s, _ := newScreen(t, 9, 3)
	s.Write("ab日本語\x1b[31mred\x1b[m日本")
	s.Resize(4, 3)
	want := []string{"ab日", "本語", "red", "日本"}
	all := snapshotAll(s)
	if strings.Join(all, "|") != strings.Join(want, "|") {
		t.Fatalf("at 4 columns: %q", all)
	}
	s.Resize(9, 3)
	if got := joined(s); len(got) != 1 || got[0] != "ab日本語red日本" {
		t.Fatalf("joined: %q", got)
	}
	f := frame(s)
	for x := 0; x < f.Cols; x++ {
		if c := f.Cell(x, 0); c.Rune == 'r' && c.FG != PaletteColor(1) {
			t.Fatalf("red lost its colour: %+v", c)
		}
	}
}

func snapshotAll(s *Screen) []string {
	var f Frame
	s.SnapshotRange(&f, 0, s.ScrollbackLen()+func() int { _, r := s.Size(); return r }())
	return strings.Split(strings.TrimRight(string(RenderText(nil, &f)), "\n"), "\n")
}

// The alternate screen is cut, not reflowed; the main screen under it is
// reflowed with the scrollback, and shows so when the program leaves.
func TestReflowUnderAltScreen(t *testing.T) {
	s, _ := newScreen(t, 20, 4)
	long := "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
	s.Write("$ x\r\n" + long + "\r\n$ \x1b[?1049h\x1b[Halt screen text here")
	s.Resize(8, 4)
	if got := lines(s); got[0] != "alt scre" {
		t.Fatalf("alternate screen at 8 columns: %q", got)
	}
	s.Resize(12, 4)
	s.Write("\x1b[?1049l")
	if got := joined(s); strings.Join(got, "|") != "$ x|"+long+"|$" {
		t.Fatalf("after leaving: %q", got)
	}
	f := frame(s)
	if f.Cursor.X != 2 || lineAt(s, f.Cursor.Y) != "$" {
		t.Fatalf("cursor at %d,%d on %q\n%s", f.Cursor.X, f.Cursor.Y, lineAt(s, f.Cursor.Y), text(s))
	}
	if got := snapshotAll(s); strings.Join(got, "|") != "$ x|1,2,3,4,5,6,|7,8,9,10,11,|12,13,14,15|$" {
		t.Fatalf("rows at 12 columns: %q", got)
	}
}
