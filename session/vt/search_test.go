package vt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, q string) *Matcher {
	t.Helper()
	m, err := Compile(q)
	if err != nil {
		t.Fatalf("Compile(%q): %v", q, err)
	}
	return m
}

func TestMatcherSmartCase(t *testing.T) {
	cases := []struct {
		query, line string
		want        int // start, -1 for none
	}{
		{"error", "an ERROR here", 3},
		{"error", "an Error here", 3},
		{"Error", "an ERROR here", -1},
		{"Error", "an Error here", 3},
		{"x-1", "A X-1 B", 2},       // folded: the query has no capital
		{"123", "abc 123", 4},       // no letter at all
		{"ß", "STRASSE straße", 12}, // non-ASCII folds through a regexp
		{"émile", "ÉMILE", 0},
		{"Émile", "émile", -1},
		{"re:err(or)?\\b", "ERR: x", 0},
		{"re:Err", "ERR Err", 4},
		{"re:\\S+ok", "is  fine-OK", 4}, // \S is no capital: folded
		{"re:(?P<Name>ab)", "xAB", 1},   // nor is a group's name
		{"re:^$", "", 0},
		{"re:^a", "ba", -1},
	}
	for _, c := range cases {
		m := mustCompile(t, c.query)
		if got, _ := m.Index(c.line); got != c.want {
			t.Errorf("Compile(%q).Index(%q) = %d, want %d", c.query, c.line, got, c.want)
		}
	}
}

func TestMatcherErrors(t *testing.T) {
	if _, err := Compile(""); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty query: %v", err)
	}
	if _, err := Compile("re:"); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty re: %v", err)
	}
	if _, err := Compile("re:(unclosed"); err == nil || !strings.Contains(err.Error(), "fix the expression") {
		t.Errorf("bad re: %v", err)
	}
}

func TestMatcherPlainAllocatesNothing(t *testing.T) {
	lines := []string{"INFO 12:00 request served in 3ms", "WARN disk almost full", "nothing to see"}
	for _, q := range []string{"disk", "Disk", "full"} {
		m := mustCompile(t, q)
		if n := testing.AllocsPerRun(100, func() {
			for _, l := range lines {
				m.Index(l)
			}
		}); n != 0 {
			t.Errorf("%q: %v allocations per run", q, n)
		}
	}
}

func TestSearchScrollbackAndRows(t *testing.T) {
	s, _ := newScreen(t, 20, 4)
	s.Write("first Needle\r\nplain\r\nsecond needle x\r\nlast\r\non screen NEEDLE")
	sb := s.ScrollbackLen()
	got := s.Search(mustCompile(t, "needle"), 0, nil)
	want := []struct{ line, col int }{{sb + 3, 10}, {2, 7}, {0, 6}} // newest first
	if len(got) != len(want) {
		t.Fatalf("matches %+v, want lines %v", got, want)
	}
	for i, w := range want {
		if got[i].Line != w.line || got[i].Col != w.col || got[i].Cols != 6 {
			t.Errorf("match %d = %+v, want line %d col %d", i, got[i], w.line, w.col)
		}
		if ex := got[i].Excerpt[got[i].Start:got[i].End]; !strings.EqualFold(ex, "needle") {
			t.Errorf("match %d excerpt %q marks %q", i, got[i].Excerpt, ex)
		}
	}
	if got := s.Search(mustCompile(t, "needle"), 2, nil); len(got) != 2 {
		t.Errorf("limit 2 gave %d", len(got))
	}
	if got := s.Search(mustCompile(t, "Needle"), 0, nil); len(got) != 1 || got[0].Line != 0 {
		t.Errorf("capital: %+v", got)
	}
	// SearchFrom walks either way from a line.
	m := mustCompile(t, "needle")
	if r, ok := s.SearchFrom(m, sb+3, -1); !ok || r.Line != sb+3 {
		t.Errorf("from the bottom: %+v %v", r, ok)
	}
	if r, ok := s.SearchFrom(m, 1, 1); !ok || r.Line != 2 {
		t.Errorf("newer from 1: %+v %v", r, ok)
	}
	if _, ok := s.SearchFrom(m, 1, 0); ok {
		t.Error("dir 0 found something")
	}
}

// A match is found within one line only: a word cut by the line's end
// (a wrapped line) is not found across it.
func TestSearchOneLineOnly(t *testing.T) {
	s, _ := newScreen(t, 10, 3)
	s.Write("0123456needle\r\n\r\n\r\n\r\n")
	if got := s.Search(mustCompile(t, "needle"), 0, nil); len(got) != 0 {
		t.Errorf("a match across a wrap: %+v", got)
	}
	if got := s.Search(mustCompile(t, "0123456nee"), 0, nil); len(got) != 1 || got[0].Cols != 10 {
		t.Errorf("the first half: %+v", got)
	}
	if got := s.Search(mustCompile(t, "re:dle$"), 0, nil); len(got) != 1 || got[0].Col != 0 {
		t.Errorf("the second half: %+v", got)
	}
}

func TestSearchWideAndClusters(t *testing.T) {
	for _, scrolled := range []bool{false, true} {
		s, _ := newScreen(t, 20, 3)
		s.Write("ab日本語cd\r\ne\u0301tude 👍🏽 ok")
		if scrolled {
			s.Write("\r\n\r\n\r\n\r\n")
		}
		m := mustCompile(t, "本語c")
		got := s.Search(m, 0, nil)
		if len(got) != 1 || got[0].Col != 4 || got[0].Cols != 5 {
			t.Errorf("scrolled %v: wide %+v, want col 4, 5 cells", scrolled, got)
		}
		got = s.Search(mustCompile(t, "e\u0301tude"), 0, nil)
		if len(got) != 1 || got[0].Col != 0 || got[0].Cols != 5 {
			t.Errorf("scrolled %v: cluster %+v, want col 0, 5 cells", scrolled, got)
		}
		// The screen gives the skin tone modifier two cells of its own.
		got = s.Search(mustCompile(t, "👍🏽 ok"), 0, nil)
		if len(got) != 1 || got[0].Col != 6 || got[0].Cols != 7 {
			t.Errorf("scrolled %v: emoji %+v, want col 6, 7 cells", scrolled, got)
		}
		// The placeholder of a wide rune is no text: "日本" is two runes.
		if got := s.Search(mustCompile(t, "re:日.本"), 0, nil); len(got) != 0 {
			t.Errorf("scrolled %v: a placeholder matched: %+v", scrolled, got)
		}
	}
}

func TestSearchRingWrap(t *testing.T) {
	s, _ := newScreen(t, 20, 2, WithScrollback(50))
	for i := range 500 {
		fmt.Fprintf(writerFunc(s.Write), "line %d 日 x\r\n", i)
	}
	if n := s.ScrollbackLen(); n != 50 {
		t.Fatalf("scrollback %d", n)
	}
	// 50 lines of scrollback and the screen's top row.
	got := s.Search(mustCompile(t, "re:line \\d+ 日"), 0, nil)
	if len(got) != 51 {
		t.Fatalf("%d matches, want 51", len(got))
	}
	if got[0].Excerpt != "line 499 日 x" || got[0].Line != 50 || got[50].Line != 0 || got[50].Excerpt != "line 449 日 x" {
		t.Errorf("newest %+v, oldest %+v", got[0], got[50])
	}
	// The cache of special lines follows the ring as it turns.
	s.Write("line 500 日 x\r\n")
	got = s.Search(mustCompile(t, "line 45"), 0, nil)
	if len(got) != 10 || got[len(got)-1].Excerpt != "line 450 日 x" {
		t.Errorf("after one more line: %d, oldest %+v", len(got), got[len(got)-1])
	}
}

type writerFunc func(string)

func (w writerFunc) Write(p []byte) (int, error) { w(string(p)); return len(p), nil }

func TestSearchExcerptBounded(t *testing.T) {
	s, _ := newScreen(t, 400, 2)
	s.Write(strings.Repeat("é", 150) + "needle" + strings.Repeat("x", 300))
	got := s.Search(mustCompile(t, "needle"), 0, nil)
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	m := got[0]
	if len(m.Excerpt) > maxExcerpt || m.Excerpt[m.Start:m.End] != "needle" || m.Col != 150 {
		t.Errorf("excerpt %d bytes, marks %q, col %d", len(m.Excerpt), m.Excerpt[m.Start:m.End], m.Col)
	}
}

func TestRowMatches(t *testing.T) {
	s, _ := newScreen(t, 30, 2)
	s.Write("日x ab AB ab\r\nzz")
	f := frame(s)
	got := mustCompile(t, "ab").RowMatches(f.Row(0), nil)
	want := []Span{{4, 2}, {7, 2}, {10, 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("plain %v, want %v", got, want)
	}
	got = mustCompile(t, "re:日|b").RowMatches(f.Row(0), nil)
	want = []Span{{0, 2}, {5, 1}, {8, 1}, {11, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("re %v, want %v", got, want)
	}
}

// FuzzMatcher checks the query parser and matcher: no panic, matches in
// bounds, and a plain ASCII query agrees with a slow reference.
func FuzzMatcher(f *testing.F) {
	for _, s := range [][2]string{{"error", "an ERROR"}, {"Err", "Err err"}, {"re:a+b", "xaab"},
		{"re:(?i)Ab", "ab"}, {"re:\\PL", "x1"}, {"ß", "SS ß"}, {"re:[", "["}, {"日本", "日本語"}, {"a", "ſ"},
		{"re:(ab|abc)d+", "xABDD"}, {"re:k{2}", "KK"}, {"re:x(yz)*w", "xw"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, query, line string) {
		m, err := Compile(query)
		if err != nil {
			return
		}
		a, b := m.Index(line)
		if a < 0 != (b < 0) || a > b || b > len(line) {
			t.Fatalf("Index(%q) in %q = %d, %d", query, line, a, b)
		}
		if a >= 0 && lineMask(line)&m.need != m.need {
			t.Fatalf("the pair filter of %q rules out %q, which matches", query, line)
		}
		if !strings.HasPrefix(query, RegexpPrefix) && isASCII(query) {
			hay := line
			if !hasUpper(query) {
				hay = asciiLower(line)
			}
			if want := strings.Index(hay, query); want != a {
				t.Fatalf("Index(%q) in %q = %d, want %d", query, line, a, want)
			}
		}
		var row []Cell
		for _, r := range line {
			row = append(row, Cell{Rune: r})
		}
		for _, sp := range m.RowMatches(row, nil) {
			if sp.Col < 0 || sp.Cols <= 0 || sp.Col+sp.Cols > len(row) {
				t.Fatalf("span %+v in a row of %d", sp, len(row))
			}
		}
	})
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
