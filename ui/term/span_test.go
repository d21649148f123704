package term

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// spanTokens are the cells a part is made of in these tests, each with
// its width: plain ASCII, styled words, a wide character, a combining
// mark on its base, a precomposed letter, a hyperlink.
var spanTokens = []struct {
	text  string
	width int
}{
	{"a", 1}, {"e", 1}, {" ", 1}, {"x", 1}, {"~", 1},
	{"\x1b[31mred\x1b[m", 3}, {"\x1b[1;44mB\x1b[m", 1}, {"\x1b[7m \x1b[0m", 1},
	{"\x1b[32mg", 1},              // a style left open until the part's closing reset
	{"\x1b[0;35mm\x1b[0;36m:", 2}, // styles set from a reset, as a program's colours are
	{"中", 2}, {"e\u0301", 1}, {"é", 1},
	{"\x1b]8;;http://x\x1b\\L\x1b]8;;\x1b\\", 1},
}

// spanPart makes a part of width cells from tokens, padded with spaces
// and closed in the default style, as a view composes a pane's row.
func spanPart(tokens []int, width int) string {
	var b strings.Builder
	w := 0
	for _, k := range tokens {
		if w+spanTokens[k].width > width {
			break
		}
		b.WriteString(spanTokens[k].text)
		w += spanTokens[k].width
	}
	b.WriteString("\x1b[m")
	b.WriteString(strings.Repeat(" ", width-w))
	return b.String() + "\x1b[m"
}

// edit changes tokens as a program does to a row: a key typed at the
// end, one erased, one typed over, a word put in the middle.
func edit(rng *rand.Rand, tokens []int) []int {
	k := rng.IntN(len(spanTokens))
	switch op := rng.IntN(4); {
	case op == 0 || len(tokens) == 0:
		return append(tokens, k)
	case op == 1:
		return tokens[:len(tokens)-1]
	case op == 2:
		tokens[rng.IntN(len(tokens))] = k
		return tokens
	default:
		i := rng.IntN(len(tokens))
		return append(tokens[:i], append([]int{k}, tokens[i:]...)...)
	}
}

// Writing only the cells of a part that changed shows what drawing the
// whole frame anew shows, over rows typed into and edited at random,
// whole lines and lines of parts alike.
func TestChangedCellsDrawWhatWholeFramesDraw(t *testing.T) {
	const rows, parts, width = 5, 3, 14
	rng := rand.New(rand.NewPCG(5, 6))
	var tm Terminal
	screens := newScreens(t, parts*width, rows)
	tokens := make([][][]int, rows)
	for y := range tokens {
		tokens[y] = make([][]int, parts)
	}
	for step := range 3000 {
		lines, cuts := make([]string, rows), make([][]Cut, rows)
		for y := range rows {
			var b strings.Builder
			for k := range parts {
				if rng.IntN(3) == 0 {
					tokens[y][k] = edit(rng, tokens[y][k])
				}
				cuts[y] = append(cuts[y], Cut{At: b.Len(), Col: k * width})
				b.WriteString(spanPart(tokens[y][k], width))
			}
			lines[y] = b.String()
			if y%2 == 1 {
				cuts[y] = nil // drawn as one line
			}
		}
		cells := tm.render(&drawing{lines: lines, cuts: cuts, width: parts * width})
		anew := (&Terminal{}).render(&drawing{lines: lines, width: parts * width})
		if y, a, b := screens.draw(cells, anew); y >= 0 {
			t.Fatalf("step %d row %d: drawn by changed cells %q, anew %q\nline %q", step, y, a, b, lines[y])
		}
	}
}

// A key typed at a prompt on a wide pane writes its cell, not the row.
func TestTypedKeyWritesItsCell(t *testing.T) {
	var tm Terminal
	row := func(s string) []string {
		return []string{"\x1b[1;32muser@host\x1b[m:~$ " + s + strings.Repeat(" ", 180-len(s)) + "\x1b[m"}
	}
	tm.render(&drawing{lines: row(""), width: 197})
	typed := ""
	for _, c := range "echo-hello" {
		typed += string(c)
		b := string(tm.render(&drawing{lines: row(typed), width: 197}))
		want := "\x1b[1;" + strconv.Itoa(13+len(typed)) + "H" + string(c) + "\x1b[m"
		if !strings.Contains(b, want) || len(b) > 40 {
			t.Fatalf("typing %q wrote %q (%d bytes), want %q alone", typed, b, len(b), want)
		}
	}
}

// A change that ends in the default style is not followed by another
// reset; one that does not is.
func TestChangeEndsInOneReset(t *testing.T) {
	for _, c := range []struct{ was, now, want string }{
		{"x\x1b[0m", "y\x1b[m", "\x1b[1;1Hy\x1b[m"},
		{"ab ", "ac ", "\x1b[1;2Hc\x1b[m"},
		{"\x1b[31mab\x1b[m", "\x1b[32mab\x1b[m", "\x1b[1;1H\x1b[32mab\x1b[m"},
	} {
		if got := string(appendChange(nil, 0, 0, c.was, c.now)); got != c.want {
			t.Errorf("appendChange(%q, %q) = %q, want %q", c.was, c.now, got, c.want)
		}
	}
}

// What changedSpan leaves on the screen, case by case.
func TestChangedSpanCases(t *testing.T) {
	for _, c := range []struct {
		name, was, now, span string
		col                  int
	}{
		{"a key typed", "ab   ", "abc  ", "c", 2},
		{"a key erased", "abc  ", "ab   ", " ", 2},
		{"a word changed mid-line", "one two three", "one TWO three", "TWO", 4},
		{"a styled prompt kept", "\x1b[1;32m$\x1b[m ls  ", "\x1b[1;32m$\x1b[m lsx ", "x", 4},
		{"a clock in a title", "\x1b[1;44m up 12:14:04  \x1b[m", "\x1b[1;44m up 12:14:05  \x1b[m", "\x1b[1;44m5", 11},
		{"the style after the change differs: the end is written", "ab\x1b[31m cd", "ax\x1b[32m cd", "x\x1b[32m cd", 1},
		{"text in a style left open: the style is written again", "\x1b[32mab ", "\x1b[32mac ", "\x1b[32mc", 1},
		{"a combining mark now on the kept cell", "e  ", "e\u0301  ", "e\u0301", 0},
		{"a combining mark was on the kept cell", "e\u0301  ", "ex ", "ex", 0},
		{"past ASCII, all of it is written", "中a ", "中b ", "中b", 0},
		{"a wide character is written from the cell before it", "ab  ", "a中 ", "a中", 0},
		{"the end is kept whole or not at all, never half a reset", "x\x1b[0m", "y\x1b[m", "y\x1b[m", 0},
		{"styles set from a reset: the last before the change is written alone", "\x1b[0;35mf\x1b[0;36m:\x1b[0;32m1 ", "\x1b[0;35mf\x1b[0;36m:\x1b[0;32m2 ", "\x1b[0;32m2", 2},
		{"a style added to one set from a reset: both are written", "\x1b[0;35mf\x1b[1mg ", "\x1b[0;35mf\x1b[1mh ", "\x1b[0;35m\x1b[1mh", 1},
		{"a hyperlink after the change: the end is written", "a \x1b]8;;u\x1b\\L", "b \x1b]8;;u\x1b\\L", "b \x1b]8;;u\x1b\\L", 0},
		{"a narrower part: what changed, the cells past it left as a whole write leaves them", "abc", "ab", "", 2},
		{"a part of another width: the rest is written, nothing kept after", "a中 z", "ax z", "ax z", 0},
	} {
		sp := changedSpan(c.was, c.now)
		if got := string(appendSGRs(nil, c.now[sp.pen:sp.i])) + c.now[sp.i:sp.j]; got != c.span || sp.col != c.col {
			t.Errorf("%s: changedSpan(%q, %q) writes %q at column %d, want %q at %d", c.name, c.was, c.now, got, sp.col, c.span, c.col)
		}
	}
}

// changedSpan never reads past either part and never leaves out bytes
// the two parts do not share; what it keeps before the change is plain
// ASCII in styles ending in the default.
func FuzzChangedSpan(f *testing.F) {
	f.Add("abc   \x1b[m", "abcd  \x1b[m")
	f.Add("\x1b[31mred\x1b[m x", "\x1b[31mred\x1b[m y")
	f.Add("e\u0301 ", "e\u0301\u0301")
	f.Add("\x1b[3", "\x1b[31m")
	f.Add("a\x1b[m", "b\x1b[0m")
	f.Fuzz(func(t *testing.T, was, now string) {
		sp := changedSpan(was, now)
		i, j, col := sp.i, sp.j, sp.col
		if i < 0 || i > j || j > len(now) || col < 0 || col > i || sp.pen < 0 || sp.pen > i {
			t.Fatalf("changedSpan(%q, %q) = %+v", was, now, sp)
		}
		if was[:min(i, len(was))] != now[:i] {
			t.Fatalf("kept %q, which %q does not begin with", now[:i], was)
		}
		if s := len(now) - j; s > 0 && (s > len(was) || was[len(was)-s:] != now[j:]) {
			t.Fatalf("kept %q at the end, which %q does not end with", now[j:], was)
		}
		if i > 0 && (now[i-1] >= 0x80 || col == 0 && !strings.Contains(now[:i], "\x1b")) {
			t.Fatalf("kept %q (column %d) before the change", now[:i], col)
		}
	})
}

// What finding the cells to write costs a part: a row scrolled to other
// text (little kept), and a key typed at a prompt (all but a cell kept).
func BenchmarkChangedSpan(b *testing.B) {
	row := func(words ...string) string {
		var s strings.Builder
		for i, w := range words {
			fmt.Fprintf(&s, "\x1b[3%dm%s\x1b[m ", 1+i%6, w)
		}
		s.WriteString(strings.Repeat(" ", 40))
		return s.String() + "\x1b[m"
	}
	for _, c := range []struct{ name, was, now string }{
		{"scrolled", row("func", "(t", "*Terminal)", "render(f", "*drawing)", "[]byte", "{", "b", ":=", "t.buf[:0]"),
			row("full", ":=", "f.width", "!=", "t.width", "||", "len(f.lines)", "!=", "t.height", "{")},
		{"typed", "\x1b[1;32m$\x1b[m echo hell" + strings.Repeat(" ", 150) + "\x1b[m",
			"\x1b[1;32m$\x1b[m echo hello" + strings.Repeat(" ", 149) + "\x1b[m"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				changedSpan(c.was, c.now)
			}
		})
	}
}
