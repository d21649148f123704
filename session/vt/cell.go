package vt

// Color is a cell colour: the terminal's default, one of the 256 palette
// entries, or a 24-bit RGB value. The zero Color is the default colour, so a
// zero Cell is a blank in default colours.
type Color uint32

const (
	colorPalette Color = 1 << 24
	colorRGB     Color = 2 << 24
	colorKind    Color = 3 << 24
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// PaletteColor returns palette entry n (0–255; 0–15 are the ANSI colours).
func PaletteColor(n uint8) Color { return colorPalette | Color(n) }

// RGBColor returns a 24-bit colour.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c&colorKind == 0 }

// Palette returns the palette index when c is a palette colour.
func (c Color) Palette() (n uint8, ok bool) {
	return uint8(c), c&colorKind == colorPalette
}

// RGB returns the components when c is a 24-bit colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), c&colorKind == colorRGB
}

// Attr is a set of character attributes.
type Attr uint16

// Character attributes, kept per cell as the program set them.
const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrUnderline // its kind is Cell.Under
	AttrBlink
	AttrReverse
	AttrStrike
	AttrOverline
	AttrConceal
)

// UnderlineStyle is the kind of underline of a cell with AttrUnderline
// (SGR 4:n; 21 is double, as in xterm).
type UnderlineStyle uint8

// Underline styles, in SGR 4:n order less one, so that the zero value is
// the plain underline.
const (
	UnderlineSingle UnderlineStyle = iota
	UnderlineDouble
	UnderlineCurly
	UnderlineDotted
	UnderlineDashed
)

// CellFlags describe how a cell takes part in a wide character.
type CellFlags uint8

const (
	// FlagWide marks the first cell of a rune two columns wide; the cell to
	// its right is its FlagPlaceholder.
	FlagWide CellFlags = 1 << iota
	// FlagPlaceholder marks the right half of a wide rune: it holds no rune
	// of its own and the renderer prints nothing for it.
	FlagPlaceholder
	// FlagPad marks the blank that filled the last column of a row when
	// a wide rune did not fit there and wrapped: no part of the text.
	FlagPad
)

// Cell is one character cell. Colours are as the application set them:
// AttrReverse asks whoever draws the cell to swap them (exactly once).
//
// Text comes before Rune so that the cell packs into 40 bytes, not 48:
// after Rune, Text's alignment left four bytes unused, and the fields
// after it ended two bytes past 40. A frame holds a cell for every cell
// its pane shows (a 200x48 pane, 9,600 of them), for every client, and
// each row of it that changed is written again cell by cell.
type Cell struct {
	// Text is the whole grapheme cluster as the program wrote it (a base
	// and its marks, an emoji sequence) when it is more than Rune alone.
	Text   string
	Rune   rune // 0 or ' ' for a blank; the first code point of a cluster
	FG, BG Color
	UL     Color // underline colour; the default means the foreground
	Attrs  Attr
	Under  UnderlineStyle // the kind of underline, with AttrUnderline
	Flags  CellFlags
	Link   uint16 // hyperlink (OSC 8): index into Frame.Links, 0 for none
}

// style is the part of a cell that SGR (and OSC 8) encodes: the pen.
type style struct {
	fg, bg, ul Color
	attrs      Attr
	under      UnderlineStyle
	link       uint16
	// cleared marks the pen erases take in a background colour: what it
	// drew was cleared, not written, and is no text for reflow and the
	// scrollback (tmux's cleared cells). Cells never carry it.
	cleared bool
}

func (c *Cell) style() style {
	return style{fg: c.FG, bg: c.BG, ul: c.UL, attrs: c.Attrs, under: c.Under, link: c.Link}
}

// hasStyle reports whether the cell's style is st (whose cleared is
// false, as every cell's), without making the cell's style first.
func (c *Cell) hasStyle(st *style) bool {
	return c.FG == st.fg && c.BG == st.bg && c.UL == st.ul && c.Attrs == st.attrs &&
		c.Under == st.under && c.Link == st.link
}

// setStyle gives the cell the style st.
func (c *Cell) setStyle(st style) {
	c.FG, c.BG, c.UL, c.Attrs, c.Under, c.Link = st.fg, st.bg, st.ul, st.attrs, st.under, st.link
}

// vt10x glyph mode bits (unexported there; values are part of its
// state.go). The wrapper never sends vt10x an attribute (pens carry them,
// see pen.go), so only the auto-wrap mark is ever read.
const vtWrap = 1 << 6

// fixWide sets the wide-character flags of one row read from vt10x. The
// wrapper feeds a placeholder rune after every wide rune; a wide rune whose
// placeholder was overwritten, or a placeholder whose wide rune was, is a
// broken half and shows as a blank, as in xterm.
func fixWide(row []Cell) {
	for x := range row {
		c := &row[x]
		if c.Rune == padRune {
			c.Rune, c.Flags = ' ', FlagPad
			continue
		}
		if c.Rune == placeholder {
			if x > 0 && row[x-1].Flags&FlagWide != 0 {
				c.Rune, c.Flags = 0, FlagPlaceholder
			} else {
				c.Rune = ' '
			}
			continue
		}
		if c.Text == "" && c.Rune < 0x7f || cellWidth(c) != 2 {
			continue
		}
		if x+1 < len(row) && row[x+1].Rune == placeholder {
			c.Flags |= FlagWide
		} else {
			c.Rune, c.Text = ' ', "" // a blank, not a cluster no one sees
		}
	}
}
