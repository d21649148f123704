package vt

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// The filter's fast path for the sequences full-screen programs send per
// row: a CSI sequence of plain parameters (digits and semicolons) met
// between sequences is decoded here in one pass and handed to csi as
// ansi.Parser would hand it, instead of stepping the parser one byte at a
// time. Anything else, or a sequence split across writes, takes the
// parser. TestFilterFastCSIMatchesParser and FuzzFilterFastCSI compare
// both paths.

// Bounds inside which the decoding below is ansi.Parser's: it counts
// parameters up to parser.MaxParamsSize with a quirk at the last ones,
// and a value past 2^31 collides with its flag bits.
const (
	fastCSIParams = 16
	fastCSIDigits = 9
)

// plainCSI performs the CSI sequence at the start of text (text[0] is
// ESC) when it is whole and plain, and returns its length, else 0.
func (f *filter) plainCSI(text string) int {
	if f.noFastCSI || len(text) < 3 || text[1] != '[' {
		return 0
	}
	var ps [fastCSIParams]ansi.Param
	n, digits := 0, 0
	ps[0] = parser.MissingParam
	j := 2
	for ; j < len(text); j++ {
		c := text[j]
		switch {
		case c >= '0' && c <= '9':
			if digits == fastCSIDigits {
				return 0
			}
			if ps[n] == parser.MissingParam {
				ps[n] = 0
			}
			ps[n] = ps[n]*10 + ansi.Param(c-'0')
			digits++
			continue
		case c == ';':
			if n+1 == fastCSIParams {
				return 0
			}
			n++
			ps[n], digits = parser.MissingParam, 0
			continue
		case c >= 0x40 && c <= 0x7e:
		default:
			return 0 // a private marker, an intermediate, a control, a colon
		}
		break
	}
	if j == len(text) || j+1 > maxSeqLen {
		return 0
	}
	// As the parser's dispatch counts them: the field in progress, unless
	// there was none at all.
	if n > 0 || ps[0] != parser.MissingParam {
		n++
	}
	f.seq, f.seqLong = append(f.seq[:0], text[:j+1]...), false
	f.csi(ansi.Cmd(text[j]), ansi.Params(ps[:n]))
	f.seq = f.seq[:0]
	return j + 1
}
