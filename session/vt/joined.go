package vt

// RenderJoined appends the frame as plain text with the rows that wrapped
// joined to the next (what tmux's capture-pane -J gives): one line per
// logical line, separated by "\n", trailing blanks trimmed, no newline
// after the last. The blank that filled the last column of a row when a
// wide character wrapped to the next is not part of the text.
func RenderJoined(dst []byte, f *Frame) []byte {
	for y := 0; y < f.Rows; y++ {
		wrapped := y+1 < f.Rows && f.wrapped(y)
		row := f.Row(y)
		if wrapped && len(row) > 0 && row[len(row)-1].Flags&FlagPad != 0 {
			row = row[:len(row)-1]
		}
		dst = RenderRowText(dst, &Frame{Cols: len(row), Rows: 1, Cells: row}, 0)
		if wrapped {
			// RenderRowText trimmed the row: the blanks before the
			// next row are text.
			for w := textWidth(row); w < len(row); w++ {
				dst = append(dst, ' ')
			}
			continue
		}
		if y+1 < f.Rows {
			dst = append(dst, '\n')
		}
	}
	return dst
}

// wrapped reports whether row y continues on the next one.
func (f *Frame) wrapped(y int) bool { return y < len(f.Wrapped) && f.Wrapped[y] }

// textWidth is how many cells of row RenderRowText keeps: up to the last
// that shows something.
func textWidth(row []Cell) int {
	end := len(row)
	for end > 0 {
		c := &row[end-1]
		if c.Flags&FlagPlaceholder != 0 || c.Text != "" || c.Rune != ' ' && c.Rune != 0 {
			break
		}
		end--
	}
	return end
}
