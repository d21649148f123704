package vt

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// op says what a sequence handed to the emitter does, so that the Screen can
// keep its cursor model and scrollback right without parsing it again.
type op uint8

const (
	opMove         op = iota // may move the cursor or change the screen: the cursor model is stale
	opStyle                  // SGR or charset: no cursor effect
	opIndex                  // IND: a line feed without carriage return
	opNextLine               // NEL: a line feed with carriage return
	opScrollUp               // SU, n lines: lines scroll off the top
	opReset                  // RIS
	opEraseAbove             // ED 1 (vt10x misses row 0 when the cursor is on row 1)
	opClearHistory           // ED 3: forget the scrollback (no bytes)
	opResetRegion            // DECSTR: raw resets modes, then the margins reset without moving the cursor
	opRepeat                 // REP, n times (no bytes)
	opSync                   // 2026 set (n=1) or reset (n=0) (no bytes)
	opGoto                   // CUP: the cursor ends at n = y<<16 | x (0-based)
	opPen                    // the pen (termState.pen) changed (no bytes)
	opErase                  // fills cells with the background; may move the cursor
	opRestore                // restores the cursor, and with it vt10x's pen
	opAlt                    // enters (n=1) or leaves (n=0) the alternate screen
	opSave                   // saves the cursor (DECSC, ?1048, ?1049): the Screen notes it for keyframes
	opTabs                   // HTS (n=8), TBC at the cursor (n=0) or all (n=3): the Screen mirrors the stops
)

// emitter receives the filter's output, in stream order.
type emitter interface {
	// text gets printable text: valid UTF-8 without C0 controls or DEL.
	text(s string)
	// control gets BS, HT, LF, VT, FF or CR.
	control(b byte)
	// seq gets a complete sequence for vt10x (raw may be empty for ops the
	// Screen performs itself).
	seq(o op, n int, raw []byte)
	// reply gets an answer for the child.
	reply(b []byte)
}

// Limits that keep a hostile stream from growing memory or confusing
// vt10x, whose CSI buffer dispatches early at 256 bytes.
const (
	maxSeqLen    = 240
	maxStringLen = 4096
	maxParam     = 65535
)

// string kinds collected by the filter itself.
const (
	strNone byte = iota
	strOSC
	strDCS
	strOther // SOS, PM, APC, and screen's ESC k title: dropped
)

// filter is the pre-parser in front of vt10x. ESC and CSI sequences go
// through ansi.Parser one ASCII byte at a time, so a sequence split across
// writes simply continues; the raw bytes are kept alongside so that what the
// filter does not change reaches vt10x byte for byte. Strings (OSC, DCS,
// SOS, PM, APC) are collected here rather than by ansi.Parser: its table
// ends an OSC at byte 0x9C and leaves an APC at any UTF-8 lead byte, and in
// UTF-8 text those bytes are parts of ordinary characters (U+201C is
// 0xE2 0x80 0x9C).
type filter struct {
	out emitter
	p   *ansi.Parser

	seq     []byte // raw bytes of the ESC/CSI sequence in progress
	seqLong bool   // the sequence outgrew maxSeqLen: drop it at dispatch
	// noFastCSI sends every sequence through ansi.Parser (csifast.go),
	// for the tests that compare the two.
	noFastCSI bool

	str      byte   // string kind being collected, strNone when not
	strBuf   []byte // its data (up to maxStringLen)
	strLong  bool
	strEsc   bool // saw ESC inside the string: ST or the start of a new sequence
	strBEL   bool // the OSC ended with BEL (replies use the same terminator)
	scratch  []byte
	cols     int
	rows     int
	top, bot int // scroll region, 0-based inclusive

	// marks are the sequences that say what the program does (BEL,
	// notifications, progress, shell marks), in order, for TakeMarks.
	marks []Mark
	// bell is set by BEL and notice holds the latest notification's text,
	// for the UI to pass on to the user's terminal (Screen.TakeSignals).
	bell   bool
	notice *string

	links linkTable
	clip  *Clipboard // the latest OSC 52 write, until taken
	st    termState
	theme Theme // the colours queries are answered with (theme.go)
}

// termState is everything the filter tracks about the terminal.
type termState struct {
	modes    Modes
	origin   bool
	autowrap bool
	lnm      bool
	shape    CursorShape
	title    string
	pen      style // the SGR state and hyperlink, as the child set them
	// cursorColor is the cursor colour the child set (OSC 12), as sent,
	// "" for the terminal's own.
	cursorColor string

	g     [2]byte      // G0 and G1 designations: '0' is DEC line drawing
	shift int          // 0 after SI, 1 after SO
	gfx   bool         // whether vt10x currently draws line drawing
	kbd   [2]keyScreen // the keyboard protocols of the main and alternate screens (keyboard.go)
	saved struct {
		g     [2]byte
		shift int
		pen   style
	}
}

func newFilter(out emitter, cols, rows int) *filter {
	f := &filter{out: out, cols: cols, rows: rows, theme: DefaultTheme}
	f.p = ansi.NewParser()
	f.p.SetDataSize(1) // strings never reach ansi.Parser
	f.p.SetHandler(ansi.Handler{
		Execute:   f.execute,
		HandleCsi: f.csi,
		HandleEsc: f.esc,
	})
	f.reset()
	return f
}

// reset is RIS for the tracked state. The title survives, as in xterm.
func (f *filter) reset() {
	title := f.st.title
	f.st = termState{autowrap: true, title: title}
	f.st.modes.CursorVisible = true
	f.st.g = [2]byte{'B', 'B'}
	f.st.saved.g = f.st.g
	f.top, f.bot = 0, f.rows-1
}

// resize records a new size; vt10x resets the scroll region on resize.
func (f *filter) resize(cols, rows int) {
	f.cols, f.rows = cols, rows
	f.top, f.bot = 0, rows-1
}

// groundState reports whether the filter is between sequences and
// strings: the next byte starts afresh.
func (f *filter) groundState() bool {
	return f.str == strNone && len(f.seq) == 0 && f.p.State() == parser.GroundState
}

// write filters one piece of settled text.
func (f *filter) write(text string) {
	for i := 0; i < len(text); {
		if f.str != strNone {
			i = f.collect(text, i)
			continue
		}
		if f.p.State() == parser.GroundState {
			j := i
			for j < len(text) && text[j] >= 0x20 && text[j] != 0x7f {
				j++
			}
			if j > i {
				f.out.text(text[i:j])
				i = j
				continue
			}
			if c := text[i]; c != ansi.ESC {
				f.execute(c)
				i++
				continue
			}
			if n := f.plainCSI(text[i:]); n > 0 {
				i += n
				continue
			}
		}
		c := text[i]
		if c >= 0x80 {
			// A character inside ESC or CSI: the sequence is broken.
			// Drop it and print the character, as ansi's own table does.
			f.p.Reset()
			f.seq, f.seqLong = f.seq[:0], false
			continue
		}
		f.advance(c)
		i++
	}
}

// advance feeds one ASCII byte of an escape sequence to ansi.Parser.
func (f *filter) advance(c byte) {
	switch {
	case c == ansi.ESC:
		f.seq, f.seqLong = append(f.seq[:0], c), false
	case c == ansi.CAN || c == ansi.SUB:
		// Aborts the sequence: the parser goes back to ground.
	case c < 0x20:
		// A control inside a sequence acts at once and the sequence goes
		// on. Not fed to ansi.Parser: it stores the control byte in the
		// packed command, so CSI 2 CR C would dispatch as CSI 2 O.
		f.execute(c)
		return
	case c == 0x7f:
		return // ignored inside sequences
	case len(f.seq) < maxSeqLen:
		f.seq = append(f.seq, c)
	default:
		f.seqLong = true
	}
	f.p.Advance(c)
	switch f.p.State() {
	case parser.GroundState:
		f.seq, f.seqLong = f.seq[:0], false
	case parser.OscStringState:
		f.startString(strOSC)
	case parser.DcsEntryState:
		f.startString(strDCS)
	case parser.SosStringState, parser.PmStringState, parser.ApcStringState:
		f.startString(strOther)
	}
}

func (f *filter) startString(kind byte) {
	f.p.Reset()
	f.seq, f.seqLong = f.seq[:0], false
	f.str, f.strBuf, f.strLong, f.strEsc, f.strBEL = kind, f.strBuf[:0], false, false, false
}

// collect consumes string bytes from text[i:] and returns where it stopped.
func (f *filter) collect(text string, i int) int {
	for ; i < len(text); i++ {
		c := text[i]
		if f.strEsc {
			f.strEsc = false
			f.endString(c == '\\')
			if c != '\\' {
				// ESC followed by anything else aborts the string and
				// starts a new sequence.
				f.advance(ansi.ESC)
				return i
			}
			return i + 1
		}
		switch {
		case c == ansi.ESC:
			f.strEsc = true
		case c == ansi.BEL && f.str == strOSC:
			f.strBEL = true
			f.endString(true)
			return i + 1
		case c == ansi.CAN || c == ansi.SUB:
			f.endString(false)
			return i + 1
		case len(f.strBuf) < maxStringLen || len(f.strBuf) < f.stringLimit():
			f.strBuf = append(f.strBuf, c)
		default:
			f.strLong = true
		}
	}
	return i
}

func (f *filter) endString(ok bool) {
	kind := f.str
	f.str = strNone
	if ok && !f.strLong && kind == strOSC {
		f.osc(f.strBuf)
	}
	if cap(f.strBuf) > 4*maxStringLen {
		f.strBuf = nil // a long clipboard write: do not keep its buffer
	}
}

// execute handles a C0 control, in the ground state or inside a sequence.
func (f *filter) execute(c byte) {
	switch c {
	case ansi.BS, ansi.HT, ansi.LF, ansi.VT, ansi.FF, ansi.CR:
		f.out.control(c)
	case ansi.SO:
		f.st.shift = 1
		f.syncCharset()
	case ansi.SI:
		f.st.shift = 0
		f.syncCharset()
	case ansi.BEL:
		f.bell = true
		f.mark(Mark{Kind: MarkBell})
	}
	// Everything else is dropped: vt10x prints unknown controls as
	// characters while line drawing is on, and ENQ, NUL, DEL, CAN, SUB
	// have nothing to show; BEL is a mark and a bell to pass on.
}

// syncCharset tells vt10x, which knows only "line drawing on or off" for
// G0, what the active set now is (G0/G1 designation with SI/SO).
func (f *filter) syncCharset() {
	gfx := f.st.g[f.st.shift] == '0'
	if gfx == f.st.gfx {
		return
	}
	f.st.gfx = gfx
	if gfx {
		f.out.seq(opStyle, 0, []byte("\x1b(0"))
	} else {
		f.out.seq(opStyle, 0, []byte("\x1b(B"))
	}
}

// saveCharset and restoreCharset follow vt10x's cursor save and restore,
// which carry the line-drawing flag with the cursor attributes; the pen
// goes with them, as in xterm.
func (f *filter) saveCharset() {
	f.st.saved.g, f.st.saved.shift, f.st.saved.pen = f.st.g, f.st.shift, f.st.pen
}

func (f *filter) restoreCharset() {
	f.st.g, f.st.shift, f.st.pen = f.st.saved.g, f.st.saved.shift, f.st.saved.pen
	f.st.gfx = f.st.g[f.st.shift] == '0'
}

// esc handles a complete ESC sequence.
func (f *filter) esc(cmd ansi.Cmd) {
	raw := f.seq
	if f.seqLong {
		return
	}
	switch inter, final := cmd.Intermediate(), cmd.Final(); inter {
	case 0:
		f.escPlain(final, raw)
	case '(', ')':
		g := 0
		if inter == ')' {
			g = 1
		}
		f.st.g[g] = final
		f.syncCharset()
	case '#':
		if final == '8' { // DECALN
			f.out.seq(opMove, 0, raw)
		}
	}
}

func (f *filter) escPlain(final byte, raw []byte) {
	switch final {
	case '7':
		f.saveCharset()
		f.out.seq(opSave, 0, raw)
	case '8':
		f.restoreCharset()
		f.out.seq(opRestore, 0, raw)
	case 'D':
		f.out.seq(opIndex, 1, raw)
	case 'E':
		f.out.seq(opNextLine, 1, raw)
	case 'M': // RI scrolls down at the top margin
		f.out.seq(opErase, 0, raw)
	case 'H':
		f.out.seq(opTabs, 8, raw)
	case 'c':
		if f.st.modes.AltScreen {
			// vt10x's reset clears the alternate-screen flag without
			// swapping the buffers back: leave the alternate screen first.
			f.out.seq(opAlt, 0, []byte("\x1b[?1047l"))
		}
		f.reset()
		f.out.seq(opReset, 0, raw)
		f.out.seq(opSync, 0, nil)
	case '=', '>':
		f.st.modes.AppKeypad = final == '='
		f.out.seq(opStyle, 0, raw)
	case 'Z': // DECID: answered like DA1
		f.out.reply([]byte(replyDA1))
	case 'k': // screen's title: a string, dropped
		f.p.Reset()
		f.str, f.strBuf, f.strLong, f.strEsc = strOther, f.strBuf[:0], false, false
	}
}
