package vt

import "github.com/charmbracelet/x/ansi"

// sgr rewrites SGR into the subset vt10x reads correctly: plain ';'-separated
// numbers it knows. Colon forms (38:2::r:g:b, 38:5:n, 4:3), which vt10x takes
// as a reset, become their ';' equivalents; what vt10x cannot show (faint,
// conceal, strikethrough, overline, underline colour) is dropped rather than
// logged; an empty field means 0, as in xterm. A sequence vt10x already
// reads correctly passes unchanged.
func (f *filter) sgr(ps ansi.Params) {
	out := f.sgrOut[:0]
	same := plainParams(ps)
	if len(ps) == 0 {
		out = append(out, 0)
	}
	for i := 0; i < len(ps); i++ {
		p := ps[i].Param(0)
		if ps[i].HasMore() {
			// A colon group: p:sub:sub...; the last member has no flag.
			j := i + 1
			for j < len(ps) && ps[j-1].HasMore() {
				j++
			}
			out = sgrGroup(out, ps[i:j])
			i = j - 1
			continue
		}
		switch {
		case p == 38 || p == 48:
			before := len(out)
			var used int
			out, used = sgrColor(out, p, ps[i+1:], false)
			if used < 0 {
				same = false
				i = len(ps) // malformed: ignore the rest, as xterm does
				continue
			}
			if !sameInts(out[before:], ps[i:i+1+used]) {
				same = false
			}
			i += used
		case p == 58: // underline colour: consume and drop
			_, used := sgrColor(nil, p, ps[i+1:], false)
			i += max(used, 0)
			same = false
		case sgrKept(p):
			out = append(out, p)
		case p == 21: // double underline in xterm; vt10x has one kind
			out = append(out, 4)
			same = false
		default:
			same = false
		}
	}
	f.sgrOut = out
	if same {
		f.out.seq(opStyle, 0, f.seq)
		return
	}
	if len(out) == 0 {
		return // nothing vt10x can show: do not send CSI m, which resets
	}
	b := append(f.scratch[:0], "\x1b["...)
	for i, n := range out {
		if i > 0 {
			b = append(b, ';')
		}
		b = appendInt(b, n)
	}
	f.scratch = append(b, 'm')
	f.out.seq(opStyle, 0, f.scratch)
}

func sameInts(a []int, ps ansi.Params) bool {
	if len(a) != len(ps) {
		return false
	}
	for i := range a {
		if a[i] != ps[i].Param(-1) {
			return false
		}
	}
	return true
}

// sgrKept reports whether vt10x implements SGR p as xterm does.
func sgrKept(p int) bool {
	switch {
	case p == 0, p == 1, p == 3, p == 4, p == 5, p == 6, p == 7:
	case p == 22, p == 23, p == 24, p == 25, p == 27:
	case p >= 30 && p <= 37, p == 39, p >= 40 && p <= 47, p == 49:
	case p >= 90 && p <= 97, p >= 100 && p <= 107:
	default:
		return false
	}
	return true
}

// sgrGroup handles one colon group.
func sgrGroup(out []int, g ansi.Params) []int {
	switch g[0].Param(0) {
	case 38, 48:
		out, _ = sgrColor(out, g[0].Param(0), g[1:], true)
	case 4:
		if len(g) > 1 {
			if g[1].Param(0) == 0 {
				return append(out, 24)
			}
			return append(out, 4)
		}
	}
	return out
}

// sgrColor appends the ';' form of an extended colour whose selector and
// values are in rest (5;n or 2;r;g;b, or in a colon group 5:n, 2:r:g:b or
// 2:cs:r:g:b). It returns how many params it used, -1 when malformed.
func sgrColor(out []int, which int, rest ansi.Params, colon bool) ([]int, int) {
	if len(rest) == 0 {
		return out, -1
	}
	switch rest[0].Param(0) {
	case 5:
		if len(rest) < 2 {
			return out, -1
		}
		n := rest[1].Param(0)
		if n > 255 {
			return out, 2
		}
		return append(out, which, 5, n), 2
	case 2:
		vals := rest[1:]
		if colon && len(vals) >= 4 {
			vals = vals[1:] // skip the colour-space id
		}
		if len(vals) < 3 {
			return out, -1
		}
		r, g, b := vals[0].Param(0), vals[1].Param(0), vals[2].Param(0)
		used := 4
		if colon && len(rest) >= 5 {
			used = 5
		}
		if r > 255 || g > 255 || b > 255 {
			return out, used
		}
		if r == 0 && g == 0 {
			// vt10x stores r<<16|g<<8|b in the palette's number space:
			// rgb(0,0,b) would read back as palette entry b.
			g = 1
		}
		return append(out, which, 2, r, g, b), used
	}
	return out, -1
}
