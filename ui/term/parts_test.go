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
// whole line shows, and writes less.
func TestPartsDrawWhatWholeLinesDraw(t *testing.T) {
	const rows, parts, width = 6, 4, 12
	rng := rand.New(rand.NewPCG(3, 4))
	var byParts, whole Terminal
	sp, sw := vt.New(parts*width, rows), vt.New(parts*width, rows)
	defer sp.Close()
	defer sw.Close()
	texts := make([][]string, rows)
	for y := range texts {
		texts[y] = make([]string, parts)
	}
	wroteParts, wroteWhole := 0, 0
	var fp, fw vt.Frame
	for step := range 200 {
		lines, cuts := partsFrame(rng, texts, width)
		bp := byParts.render(&drawing{lines: lines, cuts: cuts, width: parts * width})
		bw := whole.render(&drawing{lines: lines, width: parts * width})
		wroteParts, wroteWhole = wroteParts+len(bp), wroteWhole+len(bw)
		sp.Write(string(bp))
		sw.Write(string(bw))
		sp.Snapshot(&fp)
		sw.Snapshot(&fw)
		for y := range rows {
			if a, b := string(vt.RenderRow(nil, &fp, y)), string(vt.RenderRow(nil, &fw, y)); a != b {
				t.Fatalf("step %d row %d drawn by parts %q, whole %q", step, y, a, b)
			}
		}
	}
	if wroteParts*3 > wroteWhole*2 {
		t.Errorf("drawing by parts wrote %d bytes, whole lines %d: not a third less", wroteParts, wroteWhole)
	}
}

// A line whose parts moved (another layout) is drawn whole.
func TestPartsMovedDrawWhole(t *testing.T) {
	var tm Terminal
	tm.render(&drawing{lines: []string{"aaabbb"}, cuts: [][]Cut{{{0, 0}, {3, 3}}}, width: 6})
	got := string(tm.render(&drawing{lines: []string{"aabbbb"}, cuts: [][]Cut{{{0, 0}, {2, 2}}}, width: 6}))
	if !strings.Contains(got, "\x1b[1;1Haabbbb") {
		t.Errorf("a line whose parts moved was drawn %q, want whole", got)
	}
	got = string(tm.render(&drawing{lines: []string{"aaBBBB"}, cuts: [][]Cut{{{0, 0}, {2, 2}}}, width: 6}))
	if !strings.Contains(got, "\x1b[1;3HBBBB") || strings.Contains(got, "aa") {
		t.Errorf("one changed part was drawn %q, want that part alone at its column", got)
	}
}
