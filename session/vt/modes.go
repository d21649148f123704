package vt

// MouseMode is the mouse tracking the child asked for.
type MouseMode uint8

// Mouse tracking modes (DECSET 9, 1000, 1002, 1003); at most one is active.
const (
	MouseNone   MouseMode = iota
	MouseX10              // 9: button presses only
	MouseNormal           // 1000: presses and releases
	MouseButton           // 1002: also motion while a button is held
	MouseAny              // 1003: all motion
)

// MouseEncoding is how mouse reports are encoded.
type MouseEncoding uint8

// Mouse report encodings (DECSET 1005, 1006, 1015).
const (
	MouseEncodingX10   MouseEncoding = iota // default: bytes, coordinates up to 223
	MouseEncodingUTF8                       // 1005
	MouseEncodingSGR                        // 1006: CSI < b;x;y M/m
	MouseEncodingURXVT                      // 1015
)

// CursorShape is the DECSCUSR cursor style (the parameter of CSI Ps SP q;
// 0 is reported as CursorBlinkingBlock).
type CursorShape uint8

// Cursor shapes, numbered as DECSCUSR numbers them.
const (
	CursorBlinkingBlock     CursorShape = 1
	CursorSteadyBlock       CursorShape = 2
	CursorBlinkingUnderline CursorShape = 3
	CursorSteadyUnderline   CursorShape = 4
	CursorBlinkingBar       CursorShape = 5
	CursorSteadyBar         CursorShape = 6
)

// Modes are the terminal modes the child set that matter outside the
// emulator: how to encode keys, mouse, paste and focus for it, and how to
// show its cursor.
type Modes struct {
	AppCursor      bool // DECCKM (?1): arrows as ESC O A
	AppKeypad      bool // DECKPAM (ESC =)
	BracketedPaste bool // ?2004
	FocusEvents    bool // ?1004
	AltScreen      bool // ?47, ?1047, ?1049
	SyncOutput     bool // ?2026: an update is in progress
	Insert         bool // IRM (4)
	CursorVisible  bool // DECTCEM (?25)
	CursorBlink    bool // ?12
	Mouse          MouseMode
	MouseEncoding  MouseEncoding
	// The keyboard protocols of the screen shown (keyboard.go): the
	// kitty protocol's flags and modifyOtherKeys' level.
	KeyFlags        KeyFlags
	ModifyOtherKeys uint8
	ThemeUpdates    bool // ?2031: colour-scheme change notifications
}

// Replies the wrapper gives in place of a terminal. DA1 claims a VT220 with
// ANSI colour, which is what programs probe for; DA2 claims a VT220 too,
// not xterm, so nothing expects xterm-only extensions.
const (
	replyDA1      = "\x1b[?62;22c"
	replyDA2      = "\x1b[>1;10;0c"
	replyXTVERSON = "\x1bP>|sandmux\x1b\\"
)

// privateMode handles one DECSET/DECRST parameter.
func (f *filter) privateMode(n int, set bool) {
	m := &f.st.modes
	pass := false
	switch n {
	case 1:
		m.AppCursor, pass = set, true
	case 6:
		f.st.origin, pass = set, true
	case 7:
		f.st.autowrap, pass = set, true
	case 12:
		m.CursorBlink = set
	case 25:
		m.CursorVisible, pass = set, true
	case 9, 1000, 1002, 1003:
		// As in xterm, resetting any tracking mode turns tracking off.
		m.Mouse = MouseNone
		if set {
			m.Mouse = mouseModeOf(n)
		}
	case 1005, 1006, 1015:
		enc := mouseEncodingOf(n)
		if set {
			m.MouseEncoding = enc
		} else if m.MouseEncoding == enc {
			m.MouseEncoding = MouseEncodingX10
		}
	case 1004:
		m.FocusEvents = set
	case 2004:
		m.BracketedPaste = set
	case 2031:
		m.ThemeUpdates = set
	case 2026:
		if m.SyncOutput != set {
			m.SyncOutput = set
			f.out.seq(opSync, boolInt(set), nil)
		}
	case 47, 1047, 1049:
		f.altScreen(n, set)
	case 1048:
		if set {
			f.saveCharset()
			f.out.seq(opSave, 0, f.modeSeq('?', n, set))
		} else {
			f.restoreCharset()
			f.out.seq(opRestore, 0, f.modeSeq('?', n, set))
		}
	}
	if pass {
		f.out.seq(opMove, 0, f.modeSeq('?', n, set))
	}
}

// altScreen switches screens. vt10x enters the alternate screen when asked
// to leave it while not in it, blanking the pane, so redundant exits never
// reach it; a redundant 1049 exit still restores the cursor, as in xterm
// (and tmux). Redundant 47/1047 entries are dropped too (vt10x would clear
// the screen; xterm does not). A redundant 1049 entry is passed: xterm and
// vt10x both save the cursor and clear.
func (f *filter) altScreen(n int, set bool) {
	m := &f.st.modes
	if set && n == 1049 {
		f.out.seq(opSave, 0, nil) // vt10x saves the cursor as it enters
	}
	if set == m.AltScreen && (!set || n != 1049) {
		if !set && n == 1049 {
			f.restoreCharset()
			f.out.seq(opRestore, 0, []byte("\x1b8"))
		}
		return
	}
	if n == 1049 {
		if set {
			f.saveCharset()
		} else {
			f.restoreCharset()
		}
	}
	m.AltScreen = set
	f.switchedScreen()
	f.out.seq(opAlt, boolInt(set), f.modeSeq('?', n, set))
}

// ansiMode handles one SM/RM parameter.
func (f *filter) ansiMode(n int, set bool) {
	switch n {
	case 4:
		// vt10x does not implement insert mode; the Screen inserts
		// blanks before each character itself.
		f.st.modes.Insert = set
	case 20:
		f.st.lnm = set
		f.out.seq(opMove, 0, f.modeSeq(0, n, set))
	}
}

func (f *filter) modeSeq(prefix byte, n int, set bool) []byte {
	b := append(f.scratch[:0], "\x1b["...)
	if prefix != 0 {
		b = append(b, prefix)
	}
	b = appendInt(b, n)
	if set {
		b = append(b, 'h')
	} else {
		b = append(b, 'l')
	}
	f.scratch = b
	return b
}

// modeReport answers DECRQM: 1 set, 2 reset, 0 not recognised.
func (f *filter) modeReport(private bool, n int) {
	var v int
	if private {
		v = f.privateModeValue(n)
	} else {
		v = f.ansiModeValue(n)
	}
	b := append(f.scratch[:0], "\x1b["...)
	if private {
		b = append(b, '?')
	}
	b = appendInt(b, n)
	b = append(b, ';')
	b = appendInt(b, v)
	b = append(b, "$y"...)
	f.scratch = b
	f.out.reply(b)
}

// privateModeValue is DECRQM's value for DEC private mode n, read back
// from what privateMode recorded.
func (f *filter) privateModeValue(n int) int {
	st := &f.st
	m := &st.modes
	var set bool
	switch n {
	case 1:
		set = m.AppCursor
	case 6:
		set = st.origin
	case 7:
		set = st.autowrap
	case 12:
		set = m.CursorBlink
	case 25:
		set = m.CursorVisible
	case 9:
		set = m.Mouse == MouseX10
	case 1000:
		set = m.Mouse == MouseNormal
	case 1002:
		set = m.Mouse == MouseButton
	case 1003:
		set = m.Mouse == MouseAny
	case 1004:
		set = m.FocusEvents
	case 1005:
		set = m.MouseEncoding == MouseEncodingUTF8
	case 1006:
		set = m.MouseEncoding == MouseEncodingSGR
	case 1015:
		set = m.MouseEncoding == MouseEncodingURXVT
	case 47, 1047, 1049:
		set = m.AltScreen
	case 2004:
		set = m.BracketedPaste
	case 2026:
		set = m.SyncOutput
	case 2031:
		set = m.ThemeUpdates
	default:
		return 0
	}
	return 2 - boolInt(set)
}

// ansiModeValue is DECRQM's value for ANSI mode n, as ansiMode keeps it.
func (f *filter) ansiModeValue(n int) int {
	switch n {
	case 4:
		return 2 - boolInt(f.st.modes.Insert)
	case 20:
		return 2 - boolInt(f.st.lnm)
	}
	return 0
}

func mouseModeOf(n int) MouseMode {
	switch n {
	case 9:
		return MouseX10
	case 1000:
		return MouseNormal
	case 1002:
		return MouseButton
	}
	return MouseAny
}

func mouseEncodingOf(n int) MouseEncoding {
	switch n {
	case 1005:
		return MouseEncodingUTF8
	case 1006:
		return MouseEncodingSGR
	}
	return MouseEncodingURXVT
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func appendInt(b []byte, n int) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}
