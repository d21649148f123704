package vt

import "unicode/utf8"

// A keyframe paints the rows that wrapped wrapping, so that the replay's
// rows carry the auto-wrap marks reflow joins them by.

// wrapsInto reports whether row y of the main screen (row) wraps into
// next, the row below, for kfWriter.row: not the bottom row (its wrap
// would scroll) nor two non-ASCII neighbours (they might join).
func (s *Screen) wrapsInto(y int, row, next []Cell) bool {
	if y+1 >= s.rows || !s.mainWrapped(y) || len(next) == 0 {
		return false
	}
	a, b := &row[len(row)-1], &next[0]
	if a.Flags&FlagPad != 0 {
		if b.Flags&FlagWide == 0 || len(row) < 2 {
			return false // only a wide character makes the pad again
		}
		a = &row[len(row)-2]
	}
	return a.Text == "" && a.Rune < utf8.RuneSelf || b.Text == "" && b.Rune < utf8.RuneSelf
}

// mainWrapped reports whether row y of the main screen carries vt10x's
// auto-wrap mark: the copy under the alternate screen, or the screen.
func (s *Screen) mainWrapped(y int) bool {
	if !s.f.st.modes.AltScreen {
		return s.term.Cell(s.cols-1, y).Mode&vtWrap != 0
	}
	i := (y+1)*s.altMainCols - 1
	return s.altMainCols == s.cols && i < len(s.altMain) && s.altMain[i].Mode&vtWrap != 0
}

// keyframeRows paints the rows read decodes, wrapped rows wrapping.
func (s *Screen) keyframeRows(k *kfWriter, row []Cell, read func(int, []Cell)) {
	next := make([]Cell, len(row))
	read(0, row)
	cont := false
	for y := range s.rows {
		if y+1 < s.rows {
			read(y+1, next)
		}
		cont = k.row(y, row, s.wrapsInto(y, row, next), cont)
		row, next = next, row
	}
}
