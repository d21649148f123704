package vt

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// param returns parameter i clamped to [0, maxParam], or def when missing.
func param(ps ansi.Params, i, def int) int {
	if i >= len(ps) {
		return def
	}
	v := ps[i].Param(def)
	if v < 0 || v > maxParam {
		return maxParam
	}
	return v
}

// plainParams reports whether vt10x reads ps as xterm does: it splits on
// ';' and stops at the first field that is not a number, so an empty field
// among others or a sub-parameter truncates the list.
func plainParams(ps ansi.Params) bool {
	if len(ps) == 0 {
		return true
	}
	for _, p := range ps {
		if p.HasMore() || p.Param(-1) < 0 || p.Param(-1) > maxParam {
			return false
		}
	}
	return true
}

// csi handles a complete CSI sequence.
func (f *filter) csi(cmd ansi.Cmd, ps ansi.Params) {
	if f.seqLong {
		return
	}
	prefix, inter, final := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	switch {
	case inter == 0 && prefix == 0:
		f.csiPlain(final, ps)
	case inter == 0 && final == 'u' && prefix != 0:
		// The kitty keyboard protocol; vt10x would restore the cursor.
		f.kittyKeys(prefix, ps)
	case inter == 0 && prefix == '?':
		f.csiPrivate(final, ps)
	case inter == 0 && prefix == '>':
		// DA2 and XTVERSION are answered, modifyOtherKeys kept
		// (vt10x takes CSI > 4;2 m as SGR reset); the rest is dropped.
		switch final {
		case 'm':
			f.modifyKeys(ps)
		case 'n':
			f.disableModifyKeys(ps)
		case 'c':
			if param(ps, 0, 0) == 0 {
				f.out.reply([]byte(replyDA2))
			}
		case 'q':
			if param(ps, 0, 0) == 0 {
				f.out.reply([]byte(replyXTVERSON))
			}
		}
	case inter == '$' && final == 'p': // DECRQM
		if prefix == 0 || prefix == '?' {
			f.modeReport(prefix == '?', param(ps, 0, 0))
		}
	case inter == ' ' && final == 'q' && prefix == 0: // DECSCUSR
		if n := param(ps, 0, 0); n <= 6 {
			f.st.shape = CursorShape(max(n, 1))
		}
	case inter == '!' && final == 'p' && prefix == 0: // DECSTR
		f.softReset()
	}
	// Everything else (DA3, title stacks,
	// window ops we do not answer) is dropped: vt10x either ignores it or
	// misreads it.
}

// countFinals are the sequences whose parameters are counts or positions:
// missing or zero means 1 (vt10x mishandles explicit zeros, e.g. ICH 0
// clears two cells and DL 0 clears the bottom line).
const countFinals = "@ABCDEFGILMPSTXZ`ade"

func (f *filter) csiPlain(final byte, ps ansi.Params) {
	raw := f.seq
	switch final {
	case 'H', 'f':
		f.cup(final, ps, raw)
	case 'J':
		f.eraseDisplay(param(ps, 0, 0))
	case 'K':
		if n := param(ps, 0, 0); n <= 2 {
			f.out.seq(opErase, 0, f.canon(0, 'K', n))
		}
	case 'm':
		f.sgr(ps)
	case 'b': // REP: vt10x lacks it
		f.out.seq(opRepeat, max(param(ps, 0, 1), 1), nil)
	case 'c':
		if param(ps, 0, 0) == 0 {
			f.out.reply([]byte(replyDA1))
		}
	case 'g':
		if n := param(ps, 0, 0); n == 0 || n == 3 {
			f.out.seq(opTabs, n, f.canon(0, 'g', n))
		}
	case 'h', 'l':
		for i := range ps {
			f.ansiMode(param(ps, i, 0), final == 'h')
		}
	case 'n':
		// DSR and CPR: vt10x answers through the reply queue, in order
		// with the text before them.
		if n := param(ps, 0, 0); n == 5 || n == 6 {
			f.out.seq(opStyle, 0, f.canon(0, 'n', n))
		}
	case 'r':
		f.setRegion(ps)
	case 's', 'u':
		// SCOSC/SCORC only without parameters.
		if len(ps) == 0 {
			f.saveRestore(final == 's', raw)
		}
	case 't':
		f.windowOp(param(ps, 0, 0))
	default:
		if strings.IndexByte(countFinals, final) >= 0 {
			f.countSeq(final, ps, raw)
		}
	}
}

// cup is CUP and HVP, canonical unless plain, with where vt10x will put
// the cursor, so that the Screen need not ask it before the next
// character (full-screen programs send a CUP per row).
func (f *filter) cup(final byte, ps ansi.Params, raw []byte) {
	row, col := max(param(ps, 0, 1), 1), max(param(ps, 1, 1), 1)
	if !plainParams(ps) || len(ps) > 2 || param(ps, 0, 1) == 0 || param(ps, 1, 1) == 0 {
		raw = f.canon(0, final, row, col)
	}
	lo, hi := 0, f.rows-1
	if f.st.origin {
		row += f.top
		lo, hi = f.top, f.bot
	}
	y := min(max(row-1, lo), hi)
	x := min(col-1, f.cols-1)
	f.out.seq(opGoto, y<<16|x, raw)
}

// eraseDisplay is ED n: below and all go to vt10x, above is the Screen's
// (vt10x leaves row 0), 3 clears the scrollback, the rest is dropped.
func (f *filter) eraseDisplay(n int) {
	switch n {
	case 0, 2:
		f.out.seq(opErase, 0, f.canon(0, 'J', n))
	case 1:
		f.out.seq(opEraseAbove, 0, f.canon(0, 'J', n))
	case 3:
		f.out.seq(opClearHistory, 0, nil)
	}
}

// saveRestore is SCOSC (save) or SCORC, with the character sets vt10x
// does not keep.
func (f *filter) saveRestore(save bool, raw []byte) {
	if save {
		f.saveCharset()
		f.out.seq(opSave, 0, raw)
		return
	}
	f.restoreCharset()
	f.out.seq(opRestore, 0, raw)
}

// countSeq is one of countFinals: its count or position made at least 1
// (canonical unless plain), and what it does to the Screen's model:
// a scroll, an erase, or a move.
func (f *filter) countSeq(final byte, ps ansi.Params, raw []byte) {
	n := max(param(ps, 0, 1), 1)
	if !plainParams(ps) || len(ps) > 1 || param(ps, 0, 1) == 0 {
		raw = f.canon(0, final, n)
	}
	o := opMove
	switch final {
	case 'S':
		o = opScrollUp
	case '@', 'P', 'X', 'L', 'M', 'T':
		o = opErase
	}
	f.out.seq(o, n, raw)
}

func (f *filter) csiPrivate(final byte, ps ansi.Params) {
	switch final {
	case 'h', 'l':
		for i := range ps {
			f.privateMode(param(ps, i, 0), final == 'h')
		}
	case 'J', 'K':
		// DECSED/DECSEL: vt10x has no protected cells, so erase all.
		f.csiPlain(final, ps)
	case 'm':
		f.queryModifyKeys(ps)
	case 'n':
		if param(ps, 0, 0) == 996 {
			f.schemeReport()
		}
	}
}

// setRegion handles DECSTBM. xterm ignores a region of fewer than two lines;
// vt10x would swap the bounds or accept it.
func (f *filter) setRegion(ps ansi.Params) {
	top := max(param(ps, 0, 1), 1)
	bot := param(ps, 1, f.rows)
	if bot == 0 || bot > f.rows {
		bot = f.rows
	}
	if top >= bot {
		return
	}
	f.top, f.bot = top-1, bot-1
	f.out.seq(opMove, 0, f.canon(0, 'r', top, bot))
}

// softReset is DECSTR: modes back to their defaults, the scroll region to
// the full screen, without moving the cursor.
func (f *filter) softReset() {
	st := &f.st
	st.modes.CursorVisible, st.modes.Insert, st.modes.AppCursor, st.modes.AppKeypad = true, false, false, false
	st.origin, st.autowrap = false, true
	st.g, st.shift = [2]byte{'B', 'B'}, 0
	st.pen.reset()
	f.syncCharset()
	f.saveCharset()
	f.top, f.bot = 0, f.rows-1
	// Resetting DECOM homes the cursor in vt10x: the Screen notes the
	// cursor first, then sends these and puts it back.
	f.out.seq(opResetRegion, 0, []byte("\x1b[0m\x1b[?25h\x1b[?6l\x1b[?7h\x1b[?1l\x1b>"))
}

// windowOp answers the XTWINOPS size reports; a cell is taken as 8x16
// pixels, the usual guess of terminals that do not know.
func (f *filter) windowOp(n int) {
	var a, b, c int
	switch n {
	case 14:
		a, b, c = 4, f.rows*16, f.cols*8
	case 16:
		a, b, c = 6, 16, 8
	case 18, 19:
		a, b, c = 8+n-18, f.rows, f.cols
	default:
		return
	}
	f.out.reply(f.canon(0, 't', a, b, c))
}

// canon builds CSI [prefix] n1;n2;... final in the scratch buffer.
func (f *filter) canon(prefix, final byte, ns ...int) []byte {
	b := append(f.scratch[:0], "\x1b["...)
	if prefix != 0 {
		b = append(b, prefix)
	}
	for i, n := range ns {
		if i > 0 {
			b = append(b, ';')
		}
		b = appendInt(b, n)
	}
	b = append(b, final)
	f.scratch = b
	return b
}
