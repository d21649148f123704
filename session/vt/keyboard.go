package vt

import "github.com/charmbracelet/x/ansi"

// The keyboard protocols a child may ask for: the kitty keyboard
// protocol (https://sw.kovidgoyal.net/kitty/keyboard-protocol/) and
// xterm's modifyOtherKeys. The Screen only keeps what the child asked
// for, per screen as the kitty protocol says (the main and the alternate
// screen have a stack each); the UI encodes keys by it (Modes.KeyFlags,
// Modes.ModifyOtherKeys).

// KeyFlags are the kitty keyboard protocol's progressive enhancements.
type KeyFlags uint8

// The enhancement flags, as the protocol numbers them.
const (
	KeyDisambiguate   KeyFlags = 1  // escape codes for keys legacy bytes confuse
	KeyEventTypes     KeyFlags = 2  // repeat and release events
	KeyAlternates     KeyFlags = 4  // the shifted and base-layout keys
	KeyAllAsEscapes   KeyFlags = 8  // every key as an escape code, text included
	KeyAssociatedText KeyFlags = 16 // the text a key makes, with KeyAllAsEscapes
	KeyFlagsAll       KeyFlags = 31
)

// maxKeyStack bounds a screen's stack of kitty flags; a push onto a full
// stack drops the oldest entry, as the protocol allows.
const maxKeyStack = 8

// keyScreen is one screen's keyboard state.
type keyScreen struct {
	stack [maxKeyStack]KeyFlags
	n     int   // entries in use; the flags are 0 with none
	mok   uint8 // modifyOtherKeys level: 0, 1 or 2
}

func (k *keyScreen) flags() KeyFlags {
	if k.n == 0 {
		return 0
	}
	return k.stack[k.n-1]
}

func (k *keyScreen) push(fl KeyFlags) {
	if k.n == maxKeyStack {
		copy(k.stack[:], k.stack[1:])
		k.n--
	}
	k.stack[k.n] = fl & KeyFlagsAll
	k.n++
}

func (k *keyScreen) pop(n int) {
	k.n -= min(max(n, 1), k.n)
}

// set is CSI = flags ; mode u: 1 replaces the flags, 2 sets the bits
// given, 3 clears them. With an empty stack it makes the first entry, as
// kitty does, so a later pop returns to no flags.
func (k *keyScreen) set(fl KeyFlags, mode int) {
	if k.n == 0 {
		k.n = 1
		k.stack[0] = 0
	}
	cur := &k.stack[k.n-1]
	switch mode {
	case 1:
		*cur = fl
	case 2:
		*cur |= fl
	case 3:
		*cur &^= fl
	}
	*cur &= KeyFlagsAll
}

// shownKeys is the keyboard state of the screen shown now.
func (f *filter) shownKeys() *keyScreen {
	return &f.st.kbd[boolInt(f.st.modes.AltScreen)]
}

// syncKeyboard copies the shown screen's keyboard state into the modes.
func (f *filter) syncKeyboard() {
	k := f.shownKeys()
	f.st.modes.KeyFlags, f.st.modes.ModifyOtherKeys = k.flags(), k.mok
}

// switchedScreen follows a switch between the screens. The alternate
// screen gets a fresh keyboard state each time, as it gets fresh cells: a
// program that left it without popping does not leave its flags to the
// next one.
func (f *filter) switchedScreen() {
	f.st.kbd[1] = keyScreen{}
	f.syncKeyboard()
}

// kittyKeys handles CSI > flags u (push), CSI < n u (pop), CSI = flags ;
// mode u (set) and CSI ? u (query).
func (f *filter) kittyKeys(prefix byte, ps ansi.Params) {
	k := f.shownKeys()
	switch prefix {
	case '>':
		k.push(KeyFlags(param(ps, 0, 0) & int(KeyFlagsAll)))
	case '<':
		k.pop(param(ps, 0, 1))
	case '=':
		if mode := param(ps, 1, 1); mode >= 1 && mode <= 3 {
			k.set(KeyFlags(param(ps, 0, 0)&int(KeyFlagsAll)), mode)
		}
	case '?':
		f.out.reply(f.canon('?', 'u', int(k.flags())))
	}
	f.syncKeyboard()
}

// modifyKeys handles XTMODKEYS CSI > Pp ; Pv m for modifyOtherKeys
// (Pp 4): Pv 0, 1 or 2 sets the level, no Pv resets it, and CSI > m
// resets every resource. The other resources (cursor, function and keypad
// keys) are xterm's defaults already and stay so.
func (f *filter) modifyKeys(ps ansi.Params) {
	k := f.shownKeys()
	switch {
	case len(ps) == 0:
		k.mok = 0
	case param(ps, 0, 0) == 4:
		if v := param(ps, 1, 0); v <= 2 {
			k.mok = uint8(v)
		}
	}
	f.syncKeyboard()
}

// disableModifyKeys handles CSI > 4 n, which turns modifyOtherKeys off.
func (f *filter) disableModifyKeys(ps ansi.Params) {
	if param(ps, 0, -1) == 4 {
		f.shownKeys().mok = 0
		f.syncKeyboard()
	}
}

// queryModifyKeys answers XTQMODKEYS CSI ? 4 m with CSI > 4 ; level m.
func (f *filter) queryModifyKeys(ps ansi.Params) {
	if param(ps, 0, -1) == 4 {
		f.out.reply(f.canon('>', 'm', 4, int(f.shownKeys().mok)))
	}
}

// keyframeKeyboard appends what sets screen k's keyboard state, on a
// screen just reset.
func keyframeKeyboard(b []byte, k *keyScreen) []byte {
	for i := range k.n {
		b = append(b, "\x1b[>"...)
		b = appendInt(b, int(k.stack[i]))
		b = append(b, 'u')
	}
	if k.mok != 0 {
		b = append(b, "\x1b[>4;"...)
		b = appendInt(b, int(k.mok))
		b = append(b, 'm')
	}
	return b
}
