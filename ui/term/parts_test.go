package term

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/session/vt"
)

// partsFrame changes some of texts' parts (each width cells) and
// returns the frame they make: each part in a colour of its own, ending
// in the default style, as a view composes a row of pane rows.
func partsFrame(rng *rand.Rand, texts [][]string, width int) ([]string, [][]Cut) {
	lines, cuts := make([]string, len(texts)), make([][]Cut, len(texts))
	for y, parts := range texts {
		var b strings.Builder
		for k := range parts {
			if parts[k] == "" || rng.IntN(4) == 0 {
				parts[k] = fmt.Sprintf("\x1b[3%dm%-*d\x1b[m", rng.IntN(8), width, rng.IntN(1000))
			}
			cuts[y] = append(cuts[y], Cut{At: b.Len(), Col: k * width})
			b.WriteString(parts[k])
		}
		lines[y] = b.String()
	}
	return lines, cuts
}

// Drawing only the parts of a line that changed shows what drawing the
// whole frame anew shows, and writes less.
func TestPartsDrawWhatWholeLinesDraw(t *testing.T) {
	const rows, parts, width = 6, 4, 12
	rng := rand.New(rand.NewPCG(3, 4))
	var byParts Terminal
	screens := newScreens(t, parts*width, rows)
	texts := make([][]string, rows)
	for y := range texts {
		texts[y] = make([]string, parts)
	}
	wroteParts, wroteWhole := 0, 0
	for step := range 200 {
		lines, cuts := partsFrame(rng, texts, width)
		bp := byParts.render(&drawing{lines: lines, cuts: cuts, width: parts * width})
		bw := (&Terminal{}).render(&drawing{lines: lines, width: parts * width}) // each frame drawn anew
		wroteParts, wroteWhole = wroteParts+len(bp), wroteWhole+len(bw)
		if y, a, b := screens.draw(bp, bw); y >= 0 {
			t.Fatalf("step %d row %d drawn by parts %q, whole %q", step, y, a, b)
		}
	}
	if wroteParts*3 > wroteWhole*2 {
		t.Errorf("drawing by parts wrote %d bytes, whole lines %d: not a third less", wroteParts, wroteWhole)
	}
}

// A line whose parts moved (another layout) is drawn as one, from the
// line drawn there before: only the cell that differs.
func TestPartsMovedDrawWhole(t *testing.T) {
	var tm Terminal
	tm.render(&drawing{lines: []string{"aaabbb"}, cuts: [][]Cut{{{0, 0}, {3, 3}}}, width: 6})
	got := string(tm.render(&drawing{lines: []string{"aabbbb"}, cuts: [][]Cut{{{0, 0}, {2, 2}}}, width: 6}))
	if !strings.Contains(got, "\x1b[1;3Hb\x1b[m") || strings.Contains(got, "aa") {
		t.Errorf("a line whose parts moved was drawn %q, want its third cell alone", got)
	}
	got = string(tm.render(&drawing{lines: []string{"aaBBBB"}, cuts: [][]Cut{{{0, 0}, {2, 2}}}, width: 6}))
	if !strings.Contains(got, "\x1b[1;3HBBBB") || strings.Contains(got, "aa") {
		t.Errorf("one changed part was drawn %q, want that part alone at its column", got)
	}
}

// screens are two screens drawn the same frames two ways.
type screens struct {
	a, b   *vt.Screen
	fa, fb vt.Frame
	rows   int
}

// newScreens returns two screens of cols×rows, closed when t ends.
func newScreens(t *testing.T, cols, rows int) *screens {
	s := &screens{a: vt.New(cols, rows), b: vt.New(cols, rows), rows: rows}
	t.Cleanup(func() { s.a.Close(); s.b.Close() })
	return s
}

// draw writes a to the first screen and b to the second, and returns
// the first row they then show differently, with both renderings, or -1.
func (s *screens) draw(a, b []byte) (int, string, string) {
	s.a.Write(string(a))
	s.b.Write(string(b))
	s.a.Snapshot(&s.fa)
	s.b.Snapshot(&s.fb)
	for y := range s.rows {
		if ra, rb := string(vt.RenderRow(nil, &s.fa, y)), string(vt.RenderRow(nil, &s.fb, y)); ra != rb {
			return y, ra, rb
		}
	}
	return -1, "", ""
}
