package server

// Decoding a client's input into the messages the model takes. The guard
// (input.go) hands on only what decodes at once: whole characters,
// finished sequences, pastes in bracketed pieces. So the decoding needs
// neither a buffer of its own nor a timer, and runs in the goroutine that
// reads the guard, which sends each message straight to the core. A
// Bubble Tea program per client did this before, with two goroutine
// hand-offs more between a key and the model (from its reader to its
// event scanner, and on to its event loop): 15 to 25 µs of a key's echo
// on an idle machine, timed stage by stage.
//
// The messages are the ones Bubble Tea delivers for the same bytes (its
// translateInputEvent, and its event scanner for pastes): a key press, a
// paste's text, a mouse click, release, wheel or motion, focus and blur,
// the terminal's foreground, background and cursor colours, and a colour
// scheme change as ui.ColorSchemeMsg. Where Bubble Tea waits its ESC
// timeout on a sequence the decoder does not know, this drops the
// sequence at once: nothing follows that could complete it. Its table of
// key sequences gives what the decoder gives for every sequence in it
// with more than two bytes (the ambiguous CSI 1;m R adds a cursor
// position report, which is not passed on), so the table is not needed.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/sandmux/sandmux/ui"
)

// inputDecoder turns what the guard passed into messages. Its state is a
// paste being gathered; the guard bounds each piece to maxPaste bytes.
type inputDecoder struct {
	d     uv.EventDecoder
	paste []byte // the paste gathered so far; nil outside a paste
}

// decode hands every message buf holds to send, in order. buf holds whole
// events only (the guard's output); a paste may span calls.
func (dec *inputDecoder) decode(buf []byte, send func(tea.Msg)) {
	for len(buf) > 0 {
		n, ev := dec.d.Decode(buf)
		if n <= 0 {
			n = 1 // never the case for a non-empty buffer; progress all the same
		}
		n = min(n, len(buf))
		if dec.paste != nil {
			dec.inPaste(ev, buf[:n], send)
		} else {
			dec.event(ev, send)
		}
		buf = buf[n:]
	}
}

// event passes on one event outside a paste.
func (dec *inputDecoder) event(ev uv.Event, send func(tea.Msg)) {
	switch ev := ev.(type) {
	case uv.PasteStartEvent:
		dec.paste = []byte{}
	case uv.MultiEvent:
		for _, e := range ev {
			dec.event(e, send)
		}
	default:
		if msg := translate(ev); msg != nil {
			send(msg)
		}
	}
}

// inPaste adds one event to the paste, as Bubble Tea's scanner does: a
// key's text, or the sequence of a key without text; everything else is
// left out; the paste's end passes the paste on, its invalid UTF-8 left
// out.
func (dec *inputDecoder) inPaste(ev uv.Event, seq []byte, send func(tea.Msg)) {
	switch ev := ev.(type) {
	case uv.PasteEndEvent:
		send(tea.PasteMsg{Content: validRunes(dec.paste)})
		dec.paste = nil
	case uv.KeyPressEvent:
		switch {
		case len(ev.Text) > 0:
			dec.paste = append(dec.paste, ev.Text...)
		case !isWin32(seq):
			dec.paste = append(dec.paste, seq...)
		case ev.Code == uv.KeyEnter && ev.Code == ev.BaseCode:
			dec.paste = append(dec.paste, '\n')
		case unicode.IsControl(ev.Code) && ev.Code == ev.BaseCode:
			dec.paste = utf8.AppendRune(dec.paste, ev.Code)
		}
	}
}

// isWin32 reports a key in win32-input-mode's form (CSI … _).
func isWin32(seq []byte) bool {
	s := string(seq)
	return strings.HasPrefix(s, "\x1b[") && strings.HasSuffix(s, "_")
}

// validRunes is p's text without what is not UTF-8 (and without U+FFFD,
// which Bubble Tea cannot tell from it).
func validRunes(p []byte) string {
	var b strings.Builder
	b.Grow(len(p))
	for len(p) > 0 {
		r, w := utf8.DecodeRune(p)
		if r != utf8.RuneError {
			b.WriteRune(r)
		}
		p = p[w:]
	}
	return b.String()
}

// translate is the message Bubble Tea delivers for ev, of the kinds the
// model takes from a client; nil for any other.
func translate(ev uv.Event) tea.Msg {
	switch ev := ev.(type) {
	case uv.KeyPressEvent:
		return tea.KeyPressMsg(ev)
	case uv.PasteEvent:
		return tea.PasteMsg(ev)
	case uv.MouseClickEvent:
		return tea.MouseClickMsg(ev)
	case uv.MouseReleaseEvent:
		return tea.MouseReleaseMsg(ev)
	case uv.MouseWheelEvent:
		return tea.MouseWheelMsg(ev)
	case uv.MouseMotionEvent:
		return tea.MouseMotionMsg(ev)
	case uv.FocusEvent:
		return tea.FocusMsg(ev)
	case uv.BlurEvent:
		return tea.BlurMsg(ev)
	case uv.ForegroundColorEvent:
		return tea.ForegroundColorMsg(ev)
	case uv.BackgroundColorEvent:
		return tea.BackgroundColorMsg(ev)
	case uv.CursorColorEvent:
		return tea.CursorColorMsg(ev)
	case uv.DarkColorSchemeEvent, uv.LightColorSchemeEvent:
		return ui.ColorSchemeMsg{}
	}
	return nil
}
