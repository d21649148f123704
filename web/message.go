package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What a page sends, one JSON object per text message:
//
//	{"t":"hello","cols":120,"rows":40}        first, and only first: its size in cells
//	{"t":"resize","cols":100,"rows":30}       the window changed
//	{"t":"key","key":"ArrowUp","ctrl":true}   a key, as KeyboardEvent.key names it, and its modifiers
//	{"t":"text","data":"é"}                   text typed without a key event (a phone's keyboard, an IME)
//	{"t":"paste","data":"..."}                a paste, sent bracketed
//	{"t":"prefix"}                            the on-screen prefix button
//
// What the server sends: each frame sandmux draws as a binary message,
// and these as text:
//
//	{"t":"notify","text":"shell is waiting: needs your permission"}
//	{"t":"exit","detached":false,"code":0,"summary":"..."}

// maxMessage bounds one message from a page (A23): a paste bigger than
// this is cut by the page into several.
const maxMessage = 64 << 10

// maxSide bounds cols and rows as a page says them; the server clamps
// further (termsize, A10).
const maxSide = 65535

// kind names a message from a page.
type kind string

const (
	kindHello  kind = "hello"
	kindResize kind = "resize"
	kindKey    kind = "key"
	kindText   kind = "text"
	kindPaste  kind = "paste"
	kindPrefix kind = "prefix"
)

// message is one decoded message from a page.
type message struct {
	T     kind   `json:"t"`
	Cols  int    `json:"cols,omitempty"`
	Rows  int    `json:"rows,omitempty"`
	Key   string `json:"key,omitempty"`
	Ctrl  bool   `json:"ctrl,omitempty"`
	Alt   bool   `json:"alt,omitempty"`
	Shift bool   `json:"shift,omitempty"`
	Meta  bool   `json:"meta,omitempty"`
	Data  string `json:"data,omitempty"`
}

// decode reads one message and checks it: a known kind, no field it
// does not know, sizes in bounds, text that is UTF-8. Errors quote
// nothing of the input but its kind, cut short.
func decode(b []byte) (message, error) {
	if len(b) > maxMessage {
		return message{}, fmt.Errorf("a message of %d bytes: at most %d", len(b), maxMessage)
	}
	var m message
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return message{}, errors.New("not a message: want one JSON object with a known \"t\"")
	}
	if dec.More() {
		return message{}, errors.New("more than one JSON value in a message")
	}
	switch m.T {
	case kindHello, kindResize:
		if m.Cols < 1 || m.Rows < 1 || m.Cols > maxSide || m.Rows > maxSide {
			return message{}, fmt.Errorf("%s: a size is 1 to %d cells a side, not %dx%d", m.T, maxSide, m.Cols, m.Rows)
		}
	case kindKey:
		if m.Key == "" || len(m.Key) > 32 || !utf8.ValidString(m.Key) {
			return message{}, errors.New("key: a key name is 1 to 32 bytes of UTF-8")
		}
	case kindText, kindPaste:
		if !utf8.ValidString(m.Data) {
			return message{}, fmt.Errorf("%s: data must be UTF-8", m.T)
		}
	case kindPrefix:
	default:
		return message{}, fmt.Errorf("unknown message kind %s", strconv.Quote(cut(string(m.T), 16)))
	}
	return m, nil
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// input is what m types on the terminal sandmux decodes a client's input
// from; nil for a message that types nothing (hello, resize, a key with
// no meaning). prefix is the prefix key's bytes.
func input(m message, prefix []byte) []byte {
	switch m.T {
	case kindKey:
		return keyBytes(m)
	case kindText:
		return []byte(m.Data)
	case kindPaste:
		// The page's text cannot end the bracket early.
		data := strings.ReplaceAll(m.Data, "\x1b[201~", "")
		return []byte("\x1b[200~" + data + "\x1b[201~")
	case kindPrefix:
		return prefix
	}
	return nil
}

// special is how a named key is written: CSI with a final byte (arrows,
// Home, End: "1;MODS" before it with modifiers), CSI N ~ (PageUp and
// such: ";MODS" after N), or SS3 for F1-F4.
type special struct {
	csi   byte // final byte of CSI [1;mods] X
	tilde int  // N of CSI N [;mods] ~
	ss3   byte // final byte of SS3 X (F1-F4)
}

// specials is the table of KeyboardEvent.key names that are not text.
var specials = map[string]special{
	"ArrowUp": {csi: 'A'}, "ArrowDown": {csi: 'B'}, "ArrowRight": {csi: 'C'}, "ArrowLeft": {csi: 'D'},
	"Home": {csi: 'H'}, "End": {csi: 'F'},
	"Insert": {tilde: 2}, "Delete": {tilde: 3}, "PageUp": {tilde: 5}, "PageDown": {tilde: 6},
	"F1": {ss3: 'P'}, "F2": {ss3: 'Q'}, "F3": {ss3: 'R'}, "F4": {ss3: 'S'},
	"F5": {tilde: 15}, "F6": {tilde: 17}, "F7": {tilde: 18}, "F8": {tilde: 19},
	"F9": {tilde: 20}, "F10": {tilde: 21}, "F11": {tilde: 23}, "F12": {tilde: 24},
}

// mods is the xterm modifier parameter: 1 + shift + 2 alt + 4 ctrl.
func mods(m message) int {
	n := 1
	if m.Shift {
		n++
	}
	if m.Alt {
		n += 2
	}
	if m.Ctrl {
		n += 4
	}
	return n
}

// keyBytes encodes a key as a terminal would, as Bubble Tea decodes it:
// legacy bytes where they exist, CSI u (the kitty keyboard protocol) for
// the ones that have none, such as shift+enter. A key with the browser's
// meta (Command, Windows) is the browser's or the system's, never sent.
func keyBytes(m message) []byte {
	if m.Meta {
		return nil
	}
	if sp, ok := specials[m.Key]; ok {
		return sp.encode(mods(m))
	}
	switch m.Key {
	case "Enter":
		return modified("\r", 13, m)
	case "Tab":
		if m.Shift && !m.Ctrl && !m.Alt {
			return []byte("\x1b[Z")
		}
		return modified("\t", 9, m)
	case "Backspace":
		return modified("\x7f", 127, m)
	case "Escape":
		return modified("\x1b", 27, m)
	}
	r, size := utf8.DecodeRuneInString(m.Key)
	if size != len(m.Key) || r < ' ' {
		return nil // "Shift", "Control", "Dead", "Unidentified": not keys that type
	}
	var b []byte
	if m.Alt {
		b = append(b, 0x1b)
	}
	if m.Ctrl {
		c, ok := ctrlByte(r)
		if !ok {
			return nil
		}
		return append(b, c)
	}
	return utf8.AppendRune(b, r)
}

// modified is a key's legacy byte, or its CSI u form with modifiers.
func modified(plain string, code int, m message) []byte {
	if n := mods(m); n > 1 {
		return []byte("\x1b[" + strconv.Itoa(code) + ";" + strconv.Itoa(n) + "u")
	}
	return []byte(plain)
}

func (sp special) encode(mods int) []byte {
	switch {
	case sp.tilde != 0 && mods > 1:
		return fmt.Appendf(nil, "\x1b[%d;%d~", sp.tilde, mods)
	case sp.tilde != 0:
		return fmt.Appendf(nil, "\x1b[%d~", sp.tilde)
	case sp.ss3 != 0 && mods > 1:
		return fmt.Appendf(nil, "\x1b[1;%d%c", mods, sp.ss3)
	case sp.ss3 != 0:
		return []byte{0x1b, 'O', sp.ss3}
	case mods > 1:
		return fmt.Appendf(nil, "\x1b[1;%d%c", mods, sp.csi)
	}
	return []byte{0x1b, '[', sp.csi}
}

// ctrlByte is the C0 byte ctrl and r make: ctrl+a is 0x01, ctrl+space
// and ctrl+@ 0x00, ctrl+[ ESC, ctrl+? DEL.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= 'A' && r <= 'Z':
		return byte(r-'A') + 1, true
	case r == ' ' || r == '@' || r == '2':
		return 0, true
	case r >= '[' && r <= '_':
		return byte(r-'[') + 0x1b, true
	case r == '?':
		return 0x7f, true
	}
	return 0, false
}

// serverMsg is a text message to the page.
type serverMsg struct {
	T        string `json:"t"`
	Text     string `json:"text,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	Code     int    `json:"code,omitempty"`
	Summary  string `json:"summary,omitempty"`
}
