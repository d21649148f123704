package vt

import "github.com/charmbracelet/x/ansi"

// sgr applies an SGR sequence to the tracked pen, as xterm reads it: plain
// ';' numbers and colon groups (38:2::r:g:b, 38:5:n, 4:3, 58:2::r:g:b); an
// empty field means 0; a malformed extended colour ends the sequence. The
// Screen hands vt10x only the pen's id (pen.go), so nothing of the raw
// sequence reaches vt10x.
func (f *filter) sgr(ps ansi.Params) {
	p := &f.st.pen
	if len(ps) == 0 {
		p.reset()
	}
	for i := 0; i < len(ps); i++ {
		n := ps[i].Param(0)
		if ps[i].HasMore() {
			// A colon group: n:sub:sub...; the last member has no flag.
			j := i + 1
			for j < len(ps) && ps[j-1].HasMore() {
				j++
			}
			p.group(ps[i:j])
			i = j - 1
			continue
		}
		switch n {
		case 38, 48, 58:
			c, used := sgrColor(ps[i+1:], false)
			if used < 0 {
				i = len(ps) // malformed: ignore the rest, as xterm does
				continue
			}
			if used > 0 && c != badColor {
				p.setColor(n, c)
			}
			i += used
		default:
			p.apply(n)
		}
	}
	f.out.seq(opPen, 0, nil)
}

// reset is SGR 0: the hyperlink is not part of SGR and stays.
func (p *style) reset() { *p = style{link: p.link} }

// apply applies one plain SGR parameter.
func (p *style) apply(n int) {
	switch {
	case n == 0:
		p.reset()
	case n == 1:
		p.attrs |= AttrBold
	case n == 2:
		p.attrs |= AttrFaint
	case n == 3:
		p.attrs |= AttrItalic
	case n == 4:
		p.attrs, p.under = p.attrs|AttrUnderline, UnderlineSingle
	case n == 5 || n == 6:
		p.attrs |= AttrBlink
	case n == 7:
		p.attrs |= AttrReverse
	case n == 8:
		p.attrs |= AttrConceal
	case n == 9:
		p.attrs |= AttrStrike
	case n == 21: // double underline, as in xterm
		p.attrs, p.under = p.attrs|AttrUnderline, UnderlineDouble
	case n == 22:
		p.attrs &^= AttrBold | AttrFaint
	case n == 23:
		p.attrs &^= AttrItalic
	case n == 24:
		p.attrs, p.under = p.attrs&^AttrUnderline, UnderlineSingle
	case n == 25:
		p.attrs &^= AttrBlink
	case n == 27:
		p.attrs &^= AttrReverse
	case n == 28:
		p.attrs &^= AttrConceal
	case n == 29:
		p.attrs &^= AttrStrike
	case n >= 30 && n <= 37:
		p.fg = PaletteColor(uint8(n - 30))
	case n == 39:
		p.fg = DefaultColor
	case n >= 40 && n <= 47:
		p.bg = PaletteColor(uint8(n - 40))
	case n == 49:
		p.bg = DefaultColor
	case n == 53:
		p.attrs |= AttrOverline
	case n == 55:
		p.attrs &^= AttrOverline
	case n == 59:
		p.ul = DefaultColor
	case n >= 90 && n <= 97:
		p.fg = PaletteColor(uint8(n - 90 + 8))
	case n >= 100 && n <= 107:
		p.bg = PaletteColor(uint8(n - 100 + 8))
	}
}

func (p *style) setColor(which int, c Color) {
	switch which {
	case 38:
		p.fg = c
	case 48:
		p.bg = c
	case 58:
		p.ul = c
	}
}

// group applies one colon group.
func (p *style) group(g ansi.Params) {
	switch n := g[0].Param(0); n {
	case 38, 48, 58:
		if c, used := sgrColor(g[1:], true); used > 0 && c != badColor {
			p.setColor(n, c)
		}
	case 4:
		switch k := g[1].Param(0); {
		case k == 0:
			p.apply(24)
		case k <= 5:
			p.attrs, p.under = p.attrs|AttrUnderline, UnderlineStyle(k-1)
		}
	default:
		p.apply(n) // a plain parameter with stray sub-parameters
	}
}

// badColor marks a well-formed extended colour with a value out of range:
// its parameters are consumed and the colour is left as it was.
const badColor Color = 0xffffffff

// sgrColor reads an extended colour whose selector and values are in rest
// (5;n or 2;r;g;b, or in a colon group 5:n, 2:r:g:b or 2:cs:r:g:b). It
// returns how many params it used, -1 when malformed.
func sgrColor(rest ansi.Params, colon bool) (Color, int) {
	if len(rest) == 0 {
		return 0, -1
	}
	switch rest[0].Param(0) {
	case 5:
		if len(rest) < 2 {
			return 0, -1
		}
		n := rest[1].Param(0)
		if n > 255 {
			return badColor, 2
		}
		return PaletteColor(uint8(n)), 2
	case 2:
		vals := rest[1:]
		if colon && len(vals) >= 4 {
			vals = vals[1:] // skip the colour-space id
		}
		if len(vals) < 3 {
			return 0, -1
		}
		r, g, b := vals[0].Param(0), vals[1].Param(0), vals[2].Param(0)
		used := 4
		if colon && len(rest) >= 5 {
			used = 5
		}
		if r > 255 || g > 255 || b > 255 {
			return badColor, used
		}
		return RGBColor(uint8(r), uint8(g), uint8(b)), used
	}
	return 0, -1
}
