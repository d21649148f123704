package vt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sbWant is what a scrollback line must read back as: its cells at a
// fixed width, and the flags beside them.
type sbWant struct {
	cells            []Cell
	wrapped, special bool
	span             int32
	text             string
}

const sbTestWidth = 24

func sbWantOf(b *scrollback, l *sbLine) sbWant {
	cells := make([]Cell, sbTestWidth)
	l.cells(b.styles, cells)
	return sbWant{cells, l.wrapped, l.special, l.span, l.text()}
}

// sbRow makes a row of cells from r: letters, blanks, a wide rune and
// its placeholder, a cluster, a few styles.
func sbRow(r *rand.Rand) []Cell {
	row := make([]Cell, r.IntN(sbTestWidth+1))
	fg := PaletteColor(uint8(r.IntN(3)))
	for x := 0; x < len(row); x++ {
		if r.IntN(6) == 0 {
			fg = PaletteColor(uint8(r.IntN(3)))
		}
		c := Cell{Rune: rune('a' + r.IntN(26)), FG: fg}
		switch r.IntN(20) {
		case 0:
			c.Rune = ' '
		case 1:
			c.Rune = 'é'
		case 2:
			c.Rune, c.Text = 'e', "e\u0301"
		case 3:
			if x+1 < len(row) {
				c.Rune = '中'
				row[x] = c
				x++
				c = Cell{Flags: FlagPlaceholder, FG: fg}
			}
		case 4:
			c.Attrs = AttrBold
		}
		row[x] = c
	}
	return row
}

// TestScrollbackBlocksReadBack drives a scrollback through pushes,
// lines pulled back, style compactions and clears, and reads every line
// against what was pushed: the lines packed in cold blocks read back as
// they went in, in order, the oldest dropped past max.
func TestScrollbackBlocksReadBack(t *testing.T) {
	for _, c := range []struct{ max, writeEvery int }{
		{1, 30}, {5, 300}, {2 * sbBlockLines, 30}, {2*sbBlockLines + 1, 3000}, {700, 30}, {700, 300}, {700, 3000},
	} {
		t.Run(fmt.Sprint(c.max, "/", c.writeEvery), func(t *testing.T) {
			max, seed := c.max, uint64(c.max)
			cold, skipped := checkScrollbackOps(t, max, c.writeEvery, rand.New(rand.NewPCG(seed, seed)), 6000)
			// Past two blocks, lines went cold, and the oldest were
			// dropped from a cold block.
			if max > 2*sbBlockLines && (cold == 0 || !skipped) {
				t.Errorf("the ops never reached the cold blocks: %d blocks at most, dropped from one %v", cold, skipped)
			}
		})
	}
}

// FuzzScrollbackBlocks is TestScrollbackBlocksReadBack for any seed and
// size.
func FuzzScrollbackBlocks(f *testing.F) {
	f.Add(uint64(1), uint16(700))
	f.Add(uint64(2), uint16(129))
	f.Fuzz(func(t *testing.T, seed uint64, most uint16) {
		checkScrollbackOps(t, int(most%1200)+1, []int{30, 300, 3000}[seed%3], rand.New(rand.NewPCG(seed, seed)), 3000)
	})
}

// checkScrollbackOps runs ops random operations on a scrollback of most
// lines, checking its lines after each; a write ends one operation in
// writeEvery or so: often (lines packed as they come), now and then
// (bursts held unpacked). It returns the most cold blocks it held at
// once, and whether it dropped lines from one.
func checkScrollbackOps(t *testing.T, most, writeEvery int, r *rand.Rand, ops int) (coldMost int, skipped bool) {
	t.Helper()
	b := &scrollback{max: most}
	var want []sbWant
	check := func(op string) {
		t.Helper()
		if b.len() != len(want) {
			t.Fatalf("after %s: %d lines, want %d", op, b.len(), len(want))
		}
		for _, i := range []int{0, len(want) / 2, len(want) - 1, r.IntN(len(want) + 1)} {
			if i < 0 || i >= len(want) {
				continue
			}
			got := sbWantOf(b, b.line(i))
			if w := want[i]; !slices.Equal(got.cells, w.cells) || got.wrapped != w.wrapped || got.special != w.special ||
				got.span != w.span || got.text != w.text {
				x := 0
				for x < sbTestWidth-1 && got.cells[x] == w.cells[x] {
					x++
				}
				t.Fatalf("after %s: line %d of %d reads %q (wrapped %v, special %v, span %d, cell %d %+v),\nwant %q (%v, %v, %d, %+v)",
					op, i, len(want), got.text, got.wrapped, got.special, got.span, x, got.cells[x], w.text, w.wrapped, w.special, w.span, w.cells[x])
			}
		}
	}
	for op := range ops {
		coldMost, skipped = max(coldMost, len(b.cold)), skipped || b.skip > 0
		if r.IntN(writeEvery) == 0 {
			// A write ends: at once, once a burst's quiet has passed,
			// or the pane falls quiet.
			op := []string{"endWrite", "endWrite after the quiet", "endBurst"}[r.IntN(3)]
			switch op {
			case "endBurst":
				b.endBurst()
			case "endWrite after the quiet":
				b.burstAt = b.burstAt.Add(-BurstQuiet)
				fallthrough
			default:
				b.endWrite()
			}
			if !b.burst && len(b.hot) >= 2*sbBlockLines {
				t.Fatalf("%s, no burst: %d lines left hot", op, len(b.hot))
			}
			check(op)
			continue
		}
		switch k := r.IntN(1000); {
		case k < 880:
			wrapped := r.IntN(4) == 0
			b.push(sbRow(r), wrapped)
			if wrapped {
				b.line(b.len() - 1).span = sbTestWidth
			}
			want = append(want, sbWantOf(b, b.line(b.len()-1)))
			if len(want) > most {
				want = want[1:]
			}
			check("push")
		case k < 885:
			n := r.IntN(sbBlockLines + 10)
			b.dropNewest(n)
			want = want[:len(want)-min(n, len(want))]
			check(fmt.Sprintf("dropNewest(%d)", n))
		case k < 895:
			b.compact()
			check("compact")
		case op == ops/2:
			b.clear()
			want = want[:0]
			check("clear")
		default:
			for i := range want { // every line, in order, as a search reads them
				if got := b.line(i).text(); got != want[i].text {
					t.Fatalf("reading all: line %d is %q, want %q", i, got, want[i].text)
				}
			}
		}
	}
	return coldMost, skipped
}

// TestScrollbackBlocksSearch finds text that is only in cold blocks,
// special lines (wide runes) among them, and none of the dropped lines:
// the blocks a query's byte pairs rule out are skipped, never one that
// holds a match.
func TestScrollbackBlocksSearch(t *testing.T) {
	s := New(40, 5, WithScrollback(1000))
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, "line %04d 中 \x1b[3%dmcoloured\x1b[m\r\n", i, i%8)
	}
	s.Write(in.String())
	if got := s.ScrollbackLen(); got != 1000 {
		t.Fatalf("%d lines of scrollback, want 1000", got)
	}
	for _, c := range []struct {
		find string
		n    int
	}{{"line 1996 中", 1}, {"line 1995 ", 0}, {"line 2500", 1}, {"coloured", 1004}, {"ine 23", 100},
		{"INE 2345", 0}, {"e 2345 中 col", 1}, {"re:line 2[0-9]{2}7 ", 100}, {"7 中", 101}} {
		m := mustCompile(t, c.find)
		if got := len(s.Search(m, 5000, nil)); got != c.n {
			t.Errorf("%q: %d matches, want %d", c.find, got, c.n)
		}
	}
}

// FuzzBlockSkip searches a scrollback of cold blocks for a query with
// the blocks its byte pairs rule out skipped, and with none skipped:
// the matches must be the same.
func FuzzBlockSkip(f *testing.F) {
	for _, q := range []string{"line 1", "LINE", "re:ine (1|2)2", "re:中 \\x1b?co", "e 3", "re:[0-9]{3}7", "中 c", "re:(?i)OLOU", "Kel"} {
		f.Add(q)
	}
	s := New(40, 5, WithScrollback(1500))
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, "line %04d 中 \x1b[3%dmcoloured\x1b[m %s\r\n", i, i%8, []string{"Kelvin", "éé", "", "ſ"}[i%4])
	}
	s.Write(in.String())
	f.Fuzz(func(t *testing.T, q string) {
		m, err := Compile(q)
		if err != nil {
			return
		}
		all := *m
		all.blockNeed = nil
		got, want := s.Search(m, 0, nil), s.Search(&all, 0, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: %d matches skipping blocks, %d reading them all", q, len(got), len(want))
		}
	})
}

// TestScrollbackBurstPacksWhatStays floods a screen in writes of a
// thousand lines: through the burst, a pause of a line's write within
// it too, the scrollback packs none of the lines it drops a few writes
// later, and the first write after its quiet packs what stays, every
// line reading back in order.
func TestScrollbackBurstPacksWhatStays(t *testing.T) {
	const most = 2000
	s := New(80, 24, WithScrollback(most))
	line := func(i int) string { return fmt.Sprintf("line %06d %s", i, strings.Repeat("=", 50)) }
	n := 0
	write := func(lines int) {
		var b strings.Builder
		for range lines {
			b.WriteString(line(n) + "\r\n")
			n++
		}
		s.Write(b.String())
	}
	write(1000)   // packs as it goes: no burst came before it
	write(1000)   // holds the rest unpacked
	for range 3 { // drops the first write's blocks, then lines never packed
		write(1000)
		if got := len(s.sb.cold); got != 0 || len(s.sb.hot) != most || !s.Bursting() {
			t.Fatalf("in a burst (Bursting %v): %d cold blocks, %d hot lines; want none packed and all %d hot", s.Bursting(), got, len(s.sb.hot), most)
		}
	}
	write(1) // a pause in the flood: its reader caught up
	if len(s.sb.cold) != 0 {
		t.Fatalf("a write of a line in the burst packed %d blocks", len(s.sb.cold))
	}
	s.sb.burstAt = s.sb.burstAt.Add(-BurstQuiet)
	write(1) // after the quiet
	if s.Bursting() {
		t.Fatal("a write after the quiet left the burst going")
	}
	checkBurstLines(t, s, n-23-most) // the screen holds the newest 23 and the cursor's row
}

// TestScreenEndBurst: a burst that output ends (EndBurst, the pane's
// reader falling quiet) packs what it held, as a write after it would.
func TestScreenEndBurst(t *testing.T) {
	s := New(80, 24, WithScrollback(2000))
	for k := range 2 {
		var b strings.Builder
		for i := range 3000 {
			fmt.Fprintf(&b, "line %06d %s\r\n", k*3000+i, strings.Repeat("=", 50))
		}
		s.Write(b.String())
	}
	if !s.Bursting() || len(s.sb.hot) < 2*sbBlockLines {
		t.Fatalf("a flood left Bursting %v, %d hot lines", s.Bursting(), len(s.sb.hot))
	}
	s.EndBurst()
	if s.Bursting() {
		t.Fatal("EndBurst left the burst going")
	}
	checkBurstLines(t, s, 6000-23-2000)
}

// checkBurstLines checks that the scrollback reads back the flood's
// lines from first on.
func checkBurstLines(t *testing.T, s *Screen, first int) {
	t.Helper()
	if len(s.sb.cold) == 0 || len(s.sb.hot) >= 2*sbBlockLines {
		t.Fatalf("after the burst: %d cold blocks, %d hot lines; want all but fewer than %d packed", len(s.sb.cold), len(s.sb.hot), 2*sbBlockLines)
	}
	if got := s.sb.len(); got != 2000 {
		t.Fatalf("%d lines in the scrollback, want 2000", got)
	}
	for i := range 2000 {
		if got, want := strings.TrimRight(s.sb.line(i).text(), " "), fmt.Sprintf("line %06d %s", first+i, strings.Repeat("=", 50)); got != want {
			t.Fatalf("line %d reads %q, want %q", i, got, want)
		}
	}
}
