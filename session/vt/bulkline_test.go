package vt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// directText makes n lines mostly of the shape a direct line takes (one
// column characters and SGR, CR LF or LF, no longer than cols), with the
// cases at its edges: exactly cols wide, one more, a wide rune, a CR
// mid-line, trailing spaces in plain, coloured-background, reverse and
// erased pens, an SGR after the last character, and, with many, enough
// truecolours to make the pen table sweep during a bulk.
func directText(rng *rand.Rand, n, cols int, many bool) string {
	words := []string{"build", "ok", "λ", "→", "✓", "émoji", "x", "  ", "pty"}
	sgrs := []string{"\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[44m", "\x1b[7m", "\x1b[38;5;200m", "\x1b[48;5;19m",
		"\x1b[4;44m", "\x1b[m", "\x1b[27;39;49m", "\x1b[9m"}
	var b strings.Builder
	for i := range n {
		if many {
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm", i%256, i/256%256, rng.IntN(256))
		}
		switch rng.IntN(12) {
		case 0:
			b.WriteString(strings.Repeat("w", cols)) // exactly the width
		case 1:
			b.WriteString(strings.Repeat("v", cols+1)) // wraps: the glyph path's
		case 2:
			b.WriteString("日本 wide")
		case 3:
			b.WriteString("over\rOV") // a CR mid-line: the glyph path's
		default:
			for w := 0; w < cols/2; {
				if rng.IntN(4) == 0 {
					b.WriteString(sgrs[rng.IntN(len(sgrs))])
					continue
				}
				word := words[rng.IntN(len(words))]
				b.WriteString(word)
				w += len([]rune(word))
			}
			if rng.IntN(3) == 0 {
				b.WriteString(sgrs[rng.IntN(len(sgrs))] + strings.Repeat(" ", rng.IntN(4)))
			}
		}
		if rng.IntN(4) > 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// styledRun is a run with its style itself: two screens intern styles
// in their own orders, so their ids do not compare.
type styledRun struct {
	n  int32
	st style
}

func styledRuns(b *scrollback, l *sbLine) []styledRun {
	var out []styledRun
	for it := l.runs(); it.next(); {
		out = append(out, styledRun{it.n, b.styles.style(it.id)})
	}
	return out
}

// sameScrollback fails unless a and b hold the same scrollback lines:
// text, runs, clusters, wrap and span, not only the cells
// they make.
func sameScrollback(t *testing.T, a, b *Screen) {
	t.Helper()
	if a.sb.len() != b.sb.len() {
		t.Fatalf("scrollback of %d lines direct, %d from the glyph row", a.sb.len(), b.sb.len())
	}
	for i := range a.sb.len() {
		la, lb := a.sb.line(i), b.sb.line(i)
		if la.text() != lb.text() || la.wrapped != lb.wrapped || la.span != lb.span || la.special != lb.special ||
			!slices.Equal(styledRuns(&a.sb, la), styledRuns(&b.sb, lb)) || len(la.clusterList())+len(lb.clusterList()) > 0 {
			t.Fatalf("line %d differs:\ndirect: %+v\nglyphs: %+v", i, *la, *lb)
		}
	}
}

func TestDirectLinesMatchGlyphRows(t *testing.T) {
	directs := 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 11))
		cols, rows := 2+rng.IntN(60), 1+rng.IntN(20)
		many := seed%5 == 4
		t.Run(fmt.Sprintf("seed%d_%dx%d", seed, cols, rows), func(t *testing.T) {
			text := directText(rng, 2*rows+2*bulkMinLines+rng.IntN(400), cols, many)
			direct := New(cols, rows, WithScrollback(100000))
			glyphs := New(cols, rows, WithScrollback(100000))
			defer direct.Close()
			defer glyphs.Close()
			glyphs.noDirect = true
			for len(text) > 0 {
				n := min(len(text), 4096+rng.IntN(8192))
				for n < len(text) && text[n]&0xc0 == 0x80 {
					n++
				}
				direct.Write(text[:n])
				glyphs.Write(text[:n])
				text = text[n:]
			}
			if direct.bulks == 0 {
				t.Fatal("no bulk layout ran")
			}
			sameScrollback(t, direct, glyphs)
			directs += direct.directs
			// The cells, cursor and pen after it all, against the path
			// that never lays out in bulk at all.
			feedBoth(t, cols, rows, []string{directText(rng, rows+bulkMinLines+50, cols, many)})
		})
	}
	if directs < 1000 {
		t.Errorf("only %d lines went direct over all cases: the test proves little", directs)
	}
}

// A program in raw mode may end its lines LF CR: each line then starts
// past a bare LF, and only the CR brings the cursor back to a blank row.
// Such lines go direct from there, and match the glyph path.
func TestDirectLinesAfterLFCR(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "\x1b[3%dm%04d\x1b[m line λ %d\n\r", i%8, i, i*i)
	}
	direct := New(40, 10, WithScrollback(1000))
	glyphs := New(40, 10, WithScrollback(1000))
	defer direct.Close()
	defer glyphs.Close()
	glyphs.noDirect = true
	direct.Write(b.String())
	glyphs.Write(b.String())
	sameScrollback(t, direct, glyphs)
	if direct.directs < 200 {
		t.Errorf("%d of 300 lines went direct", direct.directs)
	}
	feedBoth(t, 40, 10, []string{b.String()})
}

// directLine accepts exactly the shape direct lays out: one column
// characters and SGR, ending in LF or CR LF, no wider than the row.
func TestDirectLineShapes(t *testing.T) {
	s := New(10, 3)
	defer s.Close()
	b := bulk{s: s}
	for _, c := range []struct {
		line       string
		end, cols  int
		cr, accept bool
	}{
		{"abc\r\n", 5, 3, true, true},
		{"abc\nrest", 4, 3, false, true},
		{"\x1b[1;31mλ→✓\x1b[0m\n", 20, 3, false, true},
		{strings.Repeat("z", 10) + "\r\n", 12, 10, true, true},
		{strings.Repeat("z", 11) + "\n", 0, 0, false, false}, // wider than the row
		{"a\rb\n", 0, 0, false, false},                       // CR mid-line
		{"日本\n", 0, 0, false, false},                         // wide
		{"a\uFDD1\n", 0, 0, false, false},                    // the pad rune stands for a wide rune's
		{"no newline", 0, 0, false, false},
		{"a\r", 0, 0, false, false},
	} {
		sh := b.directLine(c.line)
		if sh.ok != c.accept || sh.ok && (int(sh.end) != c.end || int(sh.cols) != c.cols || sh.cr != c.cr) {
			t.Errorf("directLine(%q) = %+v; want %d, %d, %v, %v", c.line, sh, c.end, c.cols, c.cr, c.accept)
		}
		if _, simple := s.bulkPrefix(c.line); simple == len(c.line) && strings.HasSuffix(c.line, "\n") {
			if got := s.shapes[len(s.shapes)-1]; got != sh && (got.ok || sh.ok) {
				t.Errorf("bulkPrefix measured %q as %+v, directLine as %+v", c.line, got, sh)
			}
		}
	}
}

// bulkPrefix measures each line of the prefix as directLine does, so a
// bulk lays out its lines without measuring them again.
func TestBulkPrefixShapesMatchDirectLine(t *testing.T) {
	lines := 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 11))
		cols := 2 + rng.IntN(90)
		s := New(cols, 5)
		b := bulk{s: s}
		text := simpleText(rng, 400, cols)
		_, simple := s.bulkPrefix(text)
		start := 0
		for k, got := range s.shapes {
			want := b.directLine(text[start:simple])
			want.end += int32(start)
			if !want.ok && !got.ok {
				start = int(got.end)
				continue
			}
			if got != want {
				t.Fatalf("seed %d, %d columns, line %d %q: bulkPrefix measured %+v, directLine %+v",
					seed, cols, k, text[start:got.end], got, want)
			}
			lines++
			start = int(got.end)
		}
		s.Close()
	}
	if lines < 1000 {
		t.Errorf("only %d direct lines compared: the test proves little", lines)
	}
}

// A write of many empty lines measures each; the screen does not keep
// those measures for the pane's life, while a log's stay for its next
// write.
func TestBulkKeepsNoHugeShapes(t *testing.T) {
	s := New(80, 24)
	defer s.Close()
	s.Write(strings.Repeat("\r\n", 30000))
	if s.bulks == 0 {
		t.Fatal("no bulk layout ran; the test shows nothing")
	}
	if c := cap(s.shapes); c > keptShapes {
		t.Errorf("the screen keeps %d line measures after a write of empty lines, want at most %d", c, keptShapes)
	}
	s.Write(strings.Repeat("a line of a log, as a build prints it\r\n", 500))
	if c := cap(s.shapes); c < 500 {
		t.Errorf("the screen keeps %d line measures after a log's 500 lines: it measures them anew each write", c)
	}
}
