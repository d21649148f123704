package vt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A cell holds the whole grapheme cluster as written (no NFC rewriting,
// nothing dropped), with the width xterm and tmux give it.
func TestContract_E1_ClustersKeepBytes(t *testing.T) {
	for _, c := range []struct {
		in string
		x  int // cursor column after
	}{
		{"e\u0301|", 2},
		{"x\u0301|", 2},
		{"a\u0301\u0302\u0303|", 2},
		{"\u0e01\u0e35\u0e48\u0e19|", 3}, // Thai: vowel and tone marks
		{"\u0915\u0941|", 2},             // Devanagari vowel sign u
		{"\u2764\ufe0f|", 2},             // VS16 kept, the width as xterm and tmux give it
		{"\u2744\ufe0f|", 2},
		{"\U0001F600\ufe0e|", 3},
		{"\U0001F468\u200d\U0001F469\u200d\U0001F467|", 3},
		{"\U0001F1EF\U0001F1F5|", 3},
		{"a\u200db|", 3},
		{"\U000F0001|\U0010FFFD|", 4}, // real code points of the stand-in planes
		{"\ue0a0|", 2},                // BMP private use: Nerd Font icons
		{"\u1100\u1161|", 3},          // Hangul jamo stay as written
	} {
		s, _ := newScreen(t, 20, 2)
		s.Write(c.in)
		if got := lines(s)[0]; got != c.in {
			t.Errorf("%+q: screen shows %+q", c.in, got)
		}
		if x := frame(s).Cursor.X; x != c.x {
			t.Errorf("%+q: cursor at %d, want %d", c.in, x, c.x)
		}
	}
}

// Scrollback, REP and the margin keep clusters too.
func TestClustersScrollRepeatMargin(t *testing.T) {
	s, _ := newScreen(t, 6, 2)
	s.Write("e\u0301\x1b[2b|\r\n\U0001F468\u200d\U0001F469!\r\n\r\n")
	var f Frame
	s.SnapshotRange(&f, 0, 2)
	if got := string(RenderText(nil, &f)); got != "e\u0301e\u0301e\u0301|\n\U0001F468\u200d\U0001F469!" {
		t.Fatalf("scrollback: %+q", got)
	}
	m, _ := newScreen(t, 4, 2)
	m.Write("abce\u0301x")
	if got := lines(m); got[0] != "abce\u0301" || got[1] != "x" {
		t.Fatalf("margin: %+q", got)
	}
	// A narrow cluster renders without VS16, which would make the outer
	// terminal draw it wide; its text keeps it.
	v, _ := newScreen(t, 4, 2)
	v.Write("abc\u2764\ufe0f")
	if got := lines(v)[0]; got != "abc\u2764\ufe0f" {
		t.Fatalf("VS16 at the margin: %+q", got)
	}
	if got := string(RenderRow(nil, frame(v), 0)); got != "abc\u2764" {
		t.Fatalf("render: %+q", got)
	}
}

// The cluster table forgets clusters no cell shows any more, the hidden
// main screen's included.
func TestContract_L2_ClusterTableBounded(t *testing.T) {
	s, _ := newScreen(t, 6, 2)
	s.Write("e\u0301\x1b[?1049h")
	var b strings.Builder
	for i := range 30000 {
		b.Reset()
		b.WriteString("\x1b[2;1H")
		b.WriteRune(rune('a' + i%26))
		for k := 0; k < 1+i%5; k++ {
			b.WriteRune(rune(0x300 + (i/26+k)%0x70))
		}
		s.Write(b.String())
		if got := lines(s); len(got) < 2 || got[1] != b.String()[len("\x1b[2;1H"):] {
			t.Fatalf("after %d clusters: %+q", i, got)
		}
	}
	if n := len(s.clusters.texts); n > 2*minClusters {
		t.Fatalf("cluster table grew to %d", n)
	}
	s.Write("\x1b[?1049l")
	if got := lines(s)[0]; got != "e\u0301" {
		t.Fatalf("the main screen's cluster was forgotten while hidden: %+q", got)
	}
}

// FuzzClusterTable writes text built from bases, marks, joiners,
// selectors, flags and code points of the stand-in planes to a screen wide
// enough not to wrap: the row reads back as written (leading marks aside),
// no stand-in leaks, and the table stays bounded however many clusters
// pass through a small screen.
func FuzzClusterTable(f *testing.F) {
	for _, s := range []string{"e\u0301", "\u2764\ufe0f", "\U0001F468\u200d\U0001F469", "\U0001F1EF\U0001F1F5\U0001F1EF", "\U000F0000\U0010FFFD"} {
		f.Add([]byte(s))
	}
	alphabet := []rune{'a', 'e', ' ', '|', '\u0301', '\u0302', '\u0e35', '\u0e48', '\u200d', '\ufe0f', '\ufe0e',
		'\u2764', '\U0001F468', '\U0001F469', '\U0001F1EF', '\U0001F1F5', '\U000F0000', '\U000F0001', '\U0010FFFD',
		'\ue0a0', '日', '\u1100', '\u1161', '\U0001F3FD', '\u0915', '\u093f'}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in []rune
		for _, b := range data {
			in = append(in, alphabet[int(b)%len(alphabet)])
		}
		// The model: clusters joined by the same rules, each at most
		// maxClusterLen bytes (further code points are dropped by design),
		// marks with nothing before them dropped.
		var want []byte
		var cl []byte
		for _, r := range in {
			last, _ := utf8.DecodeLastRune(cl)
			first, _ := utf8.DecodeRune(cl)
			join := len(cl) > 0 && (runeWidth(r) == 0 || last == 0x200d && pictograph(r) ||
				isRegional(r) && isRegional(first) && utf8.RuneCount(cl) == 1)
			switch {
			case join && len(cl)+utf8.RuneLen(r) > maxClusterLen:
			case join:
				cl = utf8.AppendRune(cl, r)
			case runeWidth(r) == 0:
			default:
				want = append(want, cl...)
				cl = utf8.AppendRune(cl[:0], r)
			}
		}
		want = append(want, cl...)
		s := New(4*len(in)+4, 2)
		defer s.Close()
		s.Write(string(in))
		var fr Frame
		s.Snapshot(&fr)
		got := string(RenderRowText(nil, &fr, 0))
		if w := strings.TrimRight(string(want), " "); got != w {
			t.Fatalf("row reads %+q, want %+q", got, w)
		}
		for _, r := range got {
			if isStandIn(r) && !strings.ContainsRune(string(in), r) {
				t.Fatalf("stand-in %U leaked", r)
			}
		}
		if w := displayWidth(string(RenderRow(nil, &fr, 0))); w != fr.Cols {
			t.Fatalf("row is %d columns, want %d", w, fr.Cols)
		}

		small := New(3, 2, WithScrollback(3))
		defer small.Close()
		for i := 0; i < 200 && len(in) > 0; i++ {
			small.Write(string(in[i%len(in):]) + string(rune('a'+i%26)) + string(rune(0x300+i%0x70)) + "\r\n")
		}
		if n := len(small.clusters.texts); n > 2*minClusters || !utf8.ValidString(text(small)) {
			t.Fatalf("cluster table grew to %d", n)
		}
	})
}
