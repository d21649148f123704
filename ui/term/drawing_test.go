package term

import (
	"math/rand/v2"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestHandedFrameIsTheTerminals: a frame handed over is copied, so the
// caller composing its next frame in the same slices, while the drawing
// goroutine still holds the last one, changes nothing that is drawn.
func TestHandedFrameIsTheTerminals(t *testing.T) {
	out := newNowBuffer(-1)
	tm := openOn(t, out)
	out.mu.Lock()
	out.gate, out.inWrite = make(chan struct{}), make(chan struct{}, 8)
	out.mu.Unlock()
	lines, cuts := []string{"one", "two"}, [][]Cut{{{0, 0}}, {{0, 0}}}
	cur := tea.NewCursor(1, 0)
	tm.ShowParts(lines, cuts, cur, 3)
	<-out.inWrite // drawing the first frame, held in its write
	lines[0], lines[1], cur.X = "ONE", "TWO", 2
	tm.ShowParts(lines, cuts, cur, 3)
	// The caller goes on in the same slices: none of this is handed.
	lines[0], lines[1], cuts[0], cur.X = "xxx", "yyy", []Cut{{0, 9}}, 0
	close(out.gate)
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	var ref Terminal
	first := string(ref.render(&drawing{lines: []string{"one", "two"}, cuts: [][]Cut{{{0, 0}}, {{0, 0}}}, cursor: tea.NewCursor(1, 0), width: 3}))
	second := string(ref.render(&drawing{lines: []string{"ONE", "TWO"}, cuts: [][]Cut{{{0, 0}}, {{0, 0}}}, cursor: tea.NewCursor(2, 0), width: 3}))
	want := enterModes + first + second + leaveModes
	if got := out.String(); got != want {
		t.Errorf("the terminal got\n%q\nwant the frames as handed\n%q", got, want)
	}
}

// TestReusedSlicesDrawTheLastFrame: frames composed one after another in
// the same slices, handed to the goroutine or drawn at once, while the
// goroutine draws: the terminal ends showing the last frame, and the
// race detector sees no frame read while it is composed again.
func TestReusedSlicesDrawTheLastFrame(t *testing.T) {
	const rows, parts, width = 5, 3, 8
	out := newNowBuffer(-1)
	tm := openOn(t, out)
	rng := rand.New(rand.NewPCG(5, 6))
	texts := make([][]string, rows)
	for y := range texts {
		texts[y] = make([]string, parts)
	}
	lines, cuts := make([]string, rows), make([][]Cut, rows)
	var last []string
	for step := range 300 {
		fresh, freshCuts := partsFrame(rng, texts, width)
		copy(lines, fresh)
		for y := range cuts {
			if step%7 == 0 || cuts[y] == nil {
				cuts[y] = freshCuts[y] // a line's own cuts are new when they change
			}
		}
		if step%3 == 0 {
			tm.ShowNow(lines, cuts, nil, parts*width)
		} else {
			tm.ShowParts(lines, cuts, nil, parts*width)
		}
		last = append(last[:0], fresh...)
	}
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	screens := newScreens(t, parts*width, rows)
	drawn := strings.TrimSuffix(strings.TrimPrefix(out.String(), enterModes), leaveModes)
	anew := (&Terminal{}).render(&drawing{lines: last, width: parts * width})
	if y, a, b := screens.draw([]byte(drawn), anew); y >= 0 {
		t.Fatalf("row %d shows %q, the last frame %q", y, a, b)
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if len(tm.spare) > maxSpare {
		t.Errorf("%d spare drawings kept, at most %d", len(tm.spare), maxSpare)
	}
}
