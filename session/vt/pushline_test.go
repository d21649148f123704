package vt

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hinshun/vt10x"
)

// pushPlain writes the same scrollback line as the Cell by Cell path for
// every row it takes, and refuses the rows it cannot: random rows of
// ASCII, blanks, narrow and wide runes, stand-ins and placeholders, drawn
// with default, coloured, underlined and cleared pens.
func TestPushPlainIsPushCells(t *testing.T) {
	const cols = 12
	fast, slow := New(cols, 4), New(cols, 4)
	pens := []style{{}, {fg: PaletteColor(1)}, {bg: PaletteColor(4)}, {attrs: AttrUnderline, under: UnderlineSingle},
		{bg: PaletteColor(2), cleared: true}, {cleared: true}, {fg: PaletteColor(1), attrs: AttrBold}}
	var ids []uint32
	for _, st := range pens {
		ids = append(ids, fast.internPen(st))
		if id := slow.internPen(st); id != ids[len(ids)-1] {
			t.Fatalf("the two screens interned %v as %d and %d", st, ids[len(ids)-1], id)
		}
	}
	runes := []rune{'a', 'Z', ' ', ' ', ' ', 0, 'é', '✓', '→', '日', placeholder, padRune, standInBase, 0x7f}
	rng := rand.New(rand.NewPCG(1, 2))
	took := 0
	for i := range 20000 {
		row := make([]vt10x.Glyph, rng.IntN(cols+1))
		for x := range row {
			row[x] = penGlyph(ids[rng.IntN(len(ids))])
			row[x].Char = runes[rng.IntN(len(runes))]
		}
		wrapped := rng.IntN(4) == 0
		before := fast.sb.len()
		if fast.pushPlain(row, wrapped) {
			took++
		} else if fast.sb.len() != before {
			t.Fatalf("row %d: pushPlain refused the row but wrote a line", i)
		} else {
			fast.pushCells(row, wrapped)
		}
		slow.pushCells(row, wrapped)
		if wrapped {
			slow.sb.line(slow.sb.len() - 1).span = cols // as pushLine does
		}
		got, want := fast.sb.line(fast.sb.len()-1), slow.sb.line(slow.sb.len()-1)
		g, w := *got, *want
		if g.text() != w.text() || !slices.Equal(styledRuns(&fast.sb, got), styledRuns(&slow.sb, want)) ||
			g.wrapped != w.wrapped || g.span != w.span || g.special != w.special || len(g.clusterList()) != len(w.clusterList()) {
			t.Fatalf("row %d %q wrapped %v: line %+v, want %+v", i, glyphRunes(row), wrapped, g, w)
		}
	}
	if took < 1000 {
		t.Errorf("pushPlain took only %d of 20000 rows: the test no longer exercises it", took)
	}
}

func glyphRunes(row []vt10x.Glyph) []rune {
	var r []rune
	for _, g := range row {
		r = append(r, g.Char)
	}
	return r
}
