package vt

import (
	"strings"
	"unicode/utf8"
)

// Render appends the frame as text with SGR escapes to dst and returns it.
// Rows are separated by "\n" (what Bubble Tea views and lipgloss join on)
// with no newline after the last row, since Bubble Tea v2 drops the top
// line of a view one row too tall. Each row is exactly f.Cols columns:
// a wide rune is printed once for its two cells, and a lone half of one
// becomes a blank. An SGR is emitted only where the style changes, and a
// row that changed style ends with a reset, so rows can be placed anywhere.
// It allocates nothing once dst has grown.
func Render(dst []byte, f *Frame) []byte {
	for y := 0; y < f.Rows; y++ {
		if y > 0 {
			dst = append(dst, '\n')
		}
		dst = RenderRow(dst, f, y)
	}
	return dst
}

// RenderRow appends row y of the frame, as Render does for each row.
func RenderRow(dst []byte, f *Frame, y int) []byte {
	return renderRow(dst, f.Row(y), f.Links)
}

// RenderTrimmed is Render for dumps (sandmux screen --ansi): each row stops
// after its last cell that shows something (a blank with a background or
// an underline shows), so rows are not padded to the frame width.
func RenderTrimmed(dst []byte, f *Frame) []byte {
	for y := 0; y < f.Rows; y++ {
		if y > 0 {
			dst = append(dst, '\n')
		}
		row := f.Row(y)
		end := len(row)
		for end > 0 && blank(&row[end-1]) {
			end--
		}
		if end > 0 && row[end-1].Flags&FlagWide != 0 {
			end++ // keep the placeholder with its wide rune
		}
		dst = renderRow(dst, row[:min(end, len(row))], f.Links)
	}
	return dst
}

func renderRow(dst []byte, row []Cell, links []string) []byte {
	var cur style
	for x := 0; x < len(row); x++ {
		c := &row[x]
		if c.Rune >= 0x20 && c.Rune < 0x7f && c.Text == "" && c.Flags == 0 && c.hasStyle(&cur) {
			// Most of a row: a printable ASCII character in the style of
			// the one before, as printable and the style change below
			// would have it.
			dst = append(dst, byte(c.Rune))
			continue
		}
		r, wide := printable(row, x)
		if st := c.style(); st != cur {
			if st.link != cur.link {
				dst = appendLink(dst, links, st.link)
			}
			if st.sgr() != cur.sgr() {
				dst = appendSGR(dst, st)
			}
			cur = st
		}
		switch {
		case r == clusterRune && !wide:
			dst = appendNarrow(dst, c.Text)
		case r == clusterRune:
			dst = append(dst, c.Text...)
		case r < utf8.RuneSelf:
			dst = append(dst, byte(r))
		default:
			dst = utf8.AppendRune(dst, r)
		}
		if wide {
			x++ // its placeholder: the rune covers both cells
		}
	}
	if cur.link != 0 {
		dst = appendLink(dst, links, 0)
	}
	if cur.sgr() != (style{}) {
		dst = append(dst, "\x1b[m"...)
	}
	return dst
}

// sgr is the style without its hyperlink.
func (st style) sgr() style {
	st.link = 0
	return st
}

// appendLink opens hyperlink id (OSC 8), or closes the open one for 0 or
// an id the frame does not know. Links hold printable ASCII only (see
// setLink).
func appendLink(dst []byte, links []string, id uint16) []byte {
	if int(id) >= len(links) || links[id] == "" {
		return append(dst, "\x1b]8;;\x1b\\"...)
	}
	dst = append(dst, "\x1b]8;"...)
	dst = append(dst, links[id]...)
	return append(dst, "\x1b\\"...)
}

// appendNarrow appends a narrow cluster without the VS16 (U+FE0F) that
// follows its base, which would ask the terminal, and width-measuring
// layouts, for a wide emoji. A VS16 elsewhere (after a joiner) stays:
// dropping it could join the cluster with the next cell.
func appendNarrow(dst []byte, text string) []byte {
	_, n := utf8.DecodeRuneInString(text)
	dst = append(dst, text[:n]...)
	return append(dst, strings.TrimPrefix(text[n:], "\ufe0f")...)
}

// clusterRune is what printable returns for a cell whose Text it shows.
const clusterRune = -1

// printable returns what cell x shows (clusterRune for its Text), and
// whether it is the first half of a complete wide character. Anything
// that would not take exactly its cells (controls, a zero-width rune, a
// wide rune without its placeholder or one marked narrow) shows as a
// blank.
func printable(row []Cell, x int) (rune, bool) {
	c := &row[x]
	r := c.Rune
	switch {
	case c.Text != "":
		if c.Flags&FlagPlaceholder != 0 || r < 0x20 || r >= 0x7f && r < 0xa0 {
			return ' ', false
		}
		r = clusterRune
	case r >= 0x20 && r < 0x7f:
		return r, false
	case c.Flags&FlagPlaceholder != 0, r < 0x20, r >= 0x7f && r < 0xa0:
		return ' ', false
	}
	w := cellWidth(c)
	if c.Flags&FlagWide != 0 {
		if w == 2 && x+1 < len(row) && row[x+1].Flags&FlagPlaceholder != 0 {
			return r, true
		}
		return ' ', false
	}
	if w != 1 {
		return ' ', false
	}
	return r, false
}

// appendSGR appends one SGR that sets st (its hyperlink aside) from a
// reset state.
func appendSGR(dst []byte, st style) []byte {
	if st.sgr() == (style{}) {
		return append(dst, "\x1b[m"...)
	}
	dst = append(dst, "\x1b[0"...)
	for _, a := range [...]struct {
		bit  Attr
		code string
	}{{AttrBold, ";1"}, {AttrFaint, ";2"}, {AttrItalic, ";3"}, {AttrUnderline, ";4"},
		{AttrBlink, ";5"}, {AttrReverse, ";7"}, {AttrConceal, ";8"}, {AttrStrike, ";9"},
		{AttrOverline, ";53"}} {
		if st.attrs&a.bit != 0 {
			dst = append(dst, a.code...)
			if a.bit == AttrUnderline && st.under != UnderlineSingle {
				dst = append(dst, ':', byte('1'+st.under))
			}
		}
	}
	dst = appendColor(dst, st.fg, 30)
	dst = appendColor(dst, st.bg, 40)
	if !st.ul.IsDefault() && st.attrs&AttrUnderline != 0 {
		dst = appendULColor(dst, st.ul)
	}
	return append(dst, 'm')
}

// appendULColor appends the underline colour in the colon form
// (58:5:n, 58:2::r:g:b) that terminals with coloured underlines read.
func appendULColor(dst []byte, c Color) []byte {
	if n, ok := c.Palette(); ok {
		dst = append(dst, ";58:5:"...)
		return appendInt(dst, int(n))
	}
	r, g, b, _ := c.RGB()
	dst = append(dst, ";58:2::"...)
	dst = appendInt(dst, int(r))
	dst = append(dst, ':')
	dst = appendInt(dst, int(g))
	dst = append(dst, ':')
	return appendInt(dst, int(b))
}

// appendColor appends ";<code>" for a foreground (base 30) or background
// (base 40) colour; nothing for the default.
func appendColor(dst []byte, c Color, base int) []byte {
	if n, ok := c.Palette(); ok {
		switch {
		case n < 8:
			return appendInt(append(dst, ';'), base+int(n))
		case n < 16:
			return appendInt(append(dst, ';'), base+60+int(n)-8)
		}
		dst = appendInt(append(dst, ';'), base+8)
		dst = append(dst, ";5;"...)
		return appendInt(dst, int(n))
	}
	if r, g, b, ok := c.RGB(); ok {
		dst = appendInt(append(dst, ';'), base+8)
		dst = append(dst, ";2;"...)
		dst = appendInt(dst, int(r))
		dst = append(dst, ';')
		dst = appendInt(dst, int(g))
		dst = append(dst, ';')
		return appendInt(dst, int(b))
	}
	return dst
}

// RenderText appends the frame as plain text, for dumps, search and
// scrollback: rows separated by "\n", trailing blanks trimmed, no newline
// after the last row.
func RenderText(dst []byte, f *Frame) []byte {
	for y := 0; y < f.Rows; y++ {
		if y > 0 {
			dst = append(dst, '\n')
		}
		dst = RenderRowText(dst, f, y)
	}
	return dst
}

// RenderRowText appends row y as plain text with trailing blanks trimmed.
func RenderRowText(dst []byte, f *Frame, y int) []byte {
	row := f.Row(y)
	end := len(dst)
	for x := 0; x < len(row); x++ {
		r, wide := printable(row, x)
		if r == clusterRune {
			dst = append(dst, row[x].Text...)
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		if r != ' ' {
			end = len(dst)
		}
		if wide {
			x++
		}
	}
	return dst[:end]
}

// rowBlank reports whether RenderRowText gives row y of f nothing: a
// screen rule looks for the last row that is not blank from the bottom
// up, past a tall screen's empty rows, without rendering them.
func rowBlank(f *Frame, y int) bool {
	row := f.Row(y)
	for x := 0; x < len(row); x++ {
		if c := &row[x]; c.Text == "" && (c.Rune == 0 || c.Rune == ' ') {
			continue // the common blank, as printable has it
		}
		r, wide := printable(row, x)
		if r != ' ' {
			return false
		}
		if wide {
			x++
		}
	}
	return true
}
