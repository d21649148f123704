package term

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Drawing the cells of a part that changed, not the whole part. A key
// typed at a shell prompt changes one cell of its pane's row, but the
// row was written whole: a 200-column pane sent some 250 bytes for each
// key's echo, where tmux sends the cell; a title's clock rewrote the
// whole title every second. A part that changed is compared with the
// part drawn before at its column: the bytes both begin with and the
// bytes both end with are left on the screen, and only what lies
// between is written, at its column, in the style the text before it
// left (its SGR sequences since the last reset, written again).
//
// Only what can be told from the bytes alone is left out, so that a
// frame shows exactly what writing the whole part shows:
//   - the text left before the change is ASCII (a column a byte) and SGR
//     sequences, and the byte after it is ASCII in both parts (a
//     combining mark belongs to the cell before it);
//   - the text left after it is ASCII and SGR sequences in both parts,
//     begins in the same style in both, and what lies between is as
//     wide in both (checked, though parts keep their width).
//
// Anything else (wide or combining characters, hyperlinks and other
// sequences) is written from there on, as before.

// appendChange writes what of now, a part at row y and column x, differs
// from was, the part drawn there before.
func appendChange(b []byte, y, x int, was, now string) []byte {
	sp := changedSpan(was, now)
	if sp.i == sp.j {
		return b // the same cells, told apart by their bytes alone
	}
	b = appendCUP(b, y, x+sp.col)
	b = appendSGRs(b, now[sp.pen:sp.i])
	b = append(b, now[sp.i:sp.j]...)
	if strings.HasSuffix(now[sp.i:sp.j], "\x1b[m") {
		return b // it ends in the default style already
	}
	return append(b, "\x1b[m"...)
}

// span is what of a part is written: now[i:j] at column col of the
// part, after the SGR sequences of now[pen:i], which set the style the
// kept text leaves.
type span struct{ pen, i, j, col int }

// changedSpan returns what of part now to write over part was.
func changedSpan(was, now string) span {
	sp := safePrefix(was, now)
	s := keptEnd(was, now, sp)
	// What is rewritten must cover what it replaces, no more, no less,
	// so the text kept after it stays at its columns. Parts keep their
	// width, so this holds; were it ever not to, the rest of the part is
	// written. (With nothing kept after it, writing the rest shows what
	// writing the whole part shows, whatever the widths.)
	if s > 0 && cells(was[sp.i:len(was)-s]) != cells(now[sp.i:len(now)-s]) {
		s = 0
	}
	sp.j = len(now) - s
	return sp
}

// cells is how many columns s takes: its ASCII bytes, when it holds
// nothing but ASCII and SGR sequences (as a changed span mostly does),
// else what ansi says.
func cells(s string) int {
	n := 0
	for k := 0; k < len(s); {
		switch b := s[k]; {
		case b == 0x1b:
			end, _, ok := sgrAt(s, k)
			if !ok {
				return ansi.StringWidth(s)
			}
			k = end
		case b >= 0x20 && b < 0x7f:
			n++
			k++
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// safePrefix is the longest start both parts share that can be left on
// the screen (i, its column col, and where the SGR sequences it leaves
// in force begin, pen): ASCII and SGR sequences only, followed in both
// by an ASCII byte or nothing. A combining mark after the kept text
// belongs to its last cell, in the part drawn before (which that cell
// shows) as in the new one (written alone, the mark would lose its
// base).
func safePrefix(was, now string) span {
	p := 0
	for p < len(was) && p < len(now) && was[p] == now[p] {
		p++
	}
	var sp span
	pen, c := 0, 0
	for k := 0; ; {
		if (k == len(now) || now[k] < 0x80) && (k == len(was) || was[k] < 0x80) {
			sp = span{pen: pen, i: k, col: c}
		}
		if k >= p {
			return sp
		}
		switch b := now[k]; {
		case b == 0x1b:
			end, reset, ok := sgrAt(now, k)
			if !ok || end > p {
				return sp
			}
			if reset {
				pen = end
			}
			k = end
		case b >= 0x20 && b < 0x7f:
			c++
			k++
		default:
			return sp
		}
	}
}

// keptEnd is how many bytes at the end of both parts can be left on the
// screen after the change: ASCII and SGR sequences, from a byte that
// lies in no sequence, in the same style in both parts. It reads each
// part a few times, whatever the length of the end they share.
func keptEnd(was, now string, sp span) int {
	tw, tn := asciiTail(was, sp.i), asciiTail(now, sp.i)
	if tw < 0 || tn < 0 {
		return 0
	}
	s := 0
	for s < len(was)-tw && s < len(now)-tn && was[len(was)-1-s] == now[len(now)-1-s] {
		s++
	}
	if s > 0 && (inSGR(was, sp.i, len(was)-s) || inSGR(now, sp.i, len(now)-s)) {
		// The end shared begins inside a sequence: keep from after it
		// (the same bytes in both, so the same end).
		k := strings.IndexByte(now[len(now)-s:], 'm')
		if k < 0 {
			return 0
		}
		s -= k + 1
	}
	if s == 0 {
		return 0
	}
	qw, qn := len(was)-s, len(now)-s
	if sameSGRs(was[penStart(was, sp.pen, qw):qw], now[penStart(now, sp.pen, qn):qn]) {
		return s
	}
	// The styles differ where the shared end begins; they are the same
	// (the default) after its first reset.
	for k := qn; k < len(now); k++ {
		if now[k] == 0x1b {
			if end, reset, ok := sgrAt(now, k); ok && reset {
				return len(now) - end
			}
		}
	}
	return 0
}

// asciiTail is where s's tail of ASCII text and SGR sequences begins,
// looking from byte from, which starts a token; -1 when a sequence other
// than SGR comes after from (the style after it cannot be told).
func asciiTail(s string, from int) int {
	start := from
	for k := from; k < len(s); {
		switch b := s[k]; {
		case b == 0x1b:
			end, _, ok := sgrAt(s, k)
			if !ok {
				return -1
			}
			k = end
		case b >= 0x20 && b < 0x7f:
			k++
		default: // a control, or a byte of a character past ASCII
			k++
			start = k
		}
	}
	return start
}

// penStart is where the SGR sequences in force at byte q of s begin:
// after the last reset in s[from:q], or from (the caller knows the style
// there by s[pen:from]).
func penStart(s string, from, q int) int {
	start := from
	for k := from; k < q; k++ {
		if s[k] == 0x1b {
			if end, reset, ok := sgrAt(s, k); ok && reset && end <= q {
				start = end
			}
		}
	}
	return start
}

// sameSGRs reports whether a and b hold the same SGR sequences in the
// same order, whatever text lies between them: the same style follows.
func sameSGRs(a, b string) bool {
	for {
		a, b = nextSeq(a), nextSeq(b)
		if a == "" || b == "" {
			return a == b
		}
		ea, _, _ := sgrAt(a, 0)
		eb, _, _ := sgrAt(b, 0)
		if ea == 0 || a[:ea] != b[:eb] {
			return false
		}
		a, b = a[ea:], b[eb:]
	}
}

// nextSeq is s from its next ESC on, "" when it has none.
func nextSeq(s string) string {
	if k := strings.IndexByte(s, 0x1b); k >= 0 {
		return s[k:]
	}
	return ""
}

// inSGR reports whether byte q of s lies inside a sequence, reading s's
// sequences from byte from, which starts none.
func inSGR(s string, from, q int) bool {
	for k := from; k < q; {
		if s[k] != 0x1b {
			k++
			continue
		}
		end, _, ok := sgrAt(s, k)
		if !ok || end > q {
			return true // not told, or inside it
		}
		k = end
	}
	return false
}

// appendSGRs appends the SGR sequences of s, without its text, from the
// last that sets the style from a reset (as the renderer's each do): the
// ones before it change nothing it leaves. Beside 16 panes of grep's
// colours scrolling, a tenth of the SGR bytes the frames wrote were such.
func appendSGRs(b []byte, s string) []byte {
	start := len(b)
	for s = nextSeq(s); s != ""; s = nextSeq(s) {
		end, _, ok := sgrAt(s, 0)
		if !ok {
			return b // not in a kept start: safePrefix keeps none
		}
		if fromReset(s[:end]) {
			b = b[:start] // what came before it is undone by it
		}
		b = append(b, s[:end]...)
		s = s[end:]
	}
	return b
}

// fromReset reports whether sgr, one SGR sequence, resets the style
// before it sets any: its first parameter is 0 or left out.
func fromReset(sgr string) bool {
	p := sgr[2 : len(sgr)-1]
	return p == "" || p == "0" || p[0] == ';' || strings.HasPrefix(p, "0;")
}

// sgrAt reads the SGR sequence at s[k] (ESC [ params m): where it ends,
// and whether it resets the style (no parameters, or only zeros). ok is
// false for any other sequence.
func sgrAt(s string, k int) (end int, reset, ok bool) {
	if k+1 >= len(s) || s[k+1] != '[' {
		return 0, false, false
	}
	reset = true
	for e := k + 2; e < len(s); e++ {
		switch b := s[e]; {
		case b == 'm':
			return e + 1, reset, true
		case b >= '1' && b <= '9', b == ':':
			reset = false
		case b == '0', b == ';':
		default:
			return 0, false, false
		}
	}
	return 0, false, false
}
