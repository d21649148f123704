package vt

import "github.com/hinshun/vt10x"

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

// Character attributes. vt10x does not keep faint or strikethrough, so a
// Screen never sets AttrFaint or AttrStrike; the renderer honours them for
// frames built or edited by the caller (for example to dim or mark cells).
const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrUnderline
	AttrBlink
	AttrReverse
	AttrStrike
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
)

// Cell is one character cell. Colours are as the application set them:
// AttrReverse asks whoever draws the cell to swap them (exactly once).
type Cell struct {
	Rune   rune // 0 or ' ' for a blank
	FG, BG Color
	Attrs  Attr
	Flags  CellFlags
}

// style is the part of a cell that SGR encodes.
type style struct {
	fg, bg Color
	attrs  Attr
}

func (c *Cell) style() style { return style{c.FG, c.BG, c.Attrs} }

// vt10x glyph mode bits (unexported there; values are part of its state.go).
const (
	vtReverse   = 1 << 0
	vtUnderline = 1 << 1
	vtBold      = 1 << 2
	vtItalic    = 1 << 4
	vtBlink     = 1 << 5
	vtWrap      = 1 << 6
)

// vtColor maps a vt10x colour: 0–255 palette, r<<16|g<<8|b truecolor (the
// filter never lets an RGB value below 256 through, see sgr.go), and
// 1<<24 and up for the defaults.
func vtColor(c vt10x.Color) Color {
	switch {
	case c >= 1<<24:
		return DefaultColor
	case c < 256:
		return colorPalette | Color(c)
	default:
		return colorRGB | Color(c)
	}
}

// cellFromGlyph converts a stored vt10x glyph. vt10x swaps FG and BG when it
// stores a reverse-video cell but keeps the bit; swap back so that a cell
// carries the colours the application set and AttrReverse is applied once,
// by whoever draws it.
func cellFromGlyph(g vt10x.Glyph) Cell {
	if g.Mode == 0 && g.FG == vt10x.DefaultFG && g.BG == vt10x.DefaultBG && g.Char != 0 {
		return Cell{Rune: g.Char} // the common case, kept cheap for Snapshot
	}
	c := Cell{Rune: g.Char, FG: vtColor(g.FG), BG: vtColor(g.BG)}
	m := g.Mode
	if m&vtBold != 0 {
		c.Attrs |= AttrBold
	}
	if m&vtItalic != 0 {
		c.Attrs |= AttrItalic
	}
	if m&vtUnderline != 0 {
		c.Attrs |= AttrUnderline
	}
	if m&vtBlink != 0 {
		c.Attrs |= AttrBlink
	}
	if m&vtReverse != 0 {
		c.Attrs |= AttrReverse
		c.FG, c.BG = c.BG, c.FG
	}
	if c.Rune == 0 {
		c.Rune = ' '
	}
	return c
}

// fixWide sets the wide-character flags of one row read from vt10x. The
// wrapper feeds a placeholder rune after every wide rune; a wide rune whose
// placeholder was overwritten, or a placeholder whose wide rune was, is a
// broken half and shows as a blank, as in xterm.
func fixWide(row []Cell) {
	for x := range row {
		c := &row[x]
		if c.Rune == placeholder {
			if x > 0 && row[x-1].Flags&FlagWide != 0 {
				c.Rune, c.Flags = 0, FlagPlaceholder
			} else {
				c.Rune = ' '
			}
			continue
		}
		if c.Rune < 0x7f || runeWidth(c.Rune) != 2 {
			continue
		}
		if x+1 < len(row) && row[x+1].Rune == placeholder {
			c.Flags |= FlagWide
		} else {
			c.Rune = ' '
		}
	}
}
