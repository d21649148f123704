package ui

// What a pane asks of the user's terminal beyond its own screen: its
// clipboard writes, bells, notifications and cursor colour. Each reaches
// the terminal only as a sequence sandmux builds itself, through
// Terminal.Passthrough.

import (
	"fmt"
	"unicode/utf8"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/termsafe"
)

// passThrough takes pane i's clipboard write, bell and notification from
// its screen, once, and passes them on to every client's terminal.
func (m *Model) passThrough(i int, p *mux.Pane) {
	c, clip := p.Screen().TakeClipboard()
	sig := p.Screen().TakeSignals()
	for _, v := range m.views {
		if v.term == nil {
			continue
		}
		if clip {
			v.passClipboard(c)
		}
		v.passSignals(i, p, sig)
	}
}

// passClipboard passes the pane's latest clipboard write (OSC 52) on to
// the user's terminal, as tmux's set-clipboard does, when the config
// allows it: a read-only client's only when ui.clipboard is "all" (A16).
// The screen checked the selection and the base64 text, so the sequence
// written is sandmux's own, never the child's bytes.
func (v *view) passClipboard(c vt.Clipboard) {
	if v.m.opts.Clipboard && (!v.readOnly || v.m.opts.ClipboardReadOnly) {
		v.term.Passthrough("\x1b]52;" + c.Selection + ";" + c.Data + "\x07")
	}
}

// maxNotice bounds a notification passed on, in bytes.
const maxNotice = 512

// passSignals passes pane i's bell and notification on to the user's
// terminal as the config says. A notification is sandmux's own OSC 9
// carrying the pane's name and the text escaped, so nothing the child sent
// can end the sequence or start another.
func (v *view) passSignals(i int, p *mux.Pane, sig vt.Signals) {
	other := i != v.focusIndex()
	if sig.Bell && passes(v.m.opts.Bell, other) {
		v.term.Passthrough("\a")
	}
	if sig.HasNotice && passes(v.m.opts.Notifications, other) {
		v.term.Passthrough(noticeSequence(p.Spec().Name + ": " + sig.Notice))
	}
}

// noticeSequence is an OSC 9 notification of text, escaped and bounded.
func noticeSequence(text string) string {
	text = termsafe.String(text)
	if len(text) > maxNotice {
		cut := maxNotice
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return "\x1b]9;" + text + "\x07"
}

func passes(mode Pass, other bool) bool {
	return mode == PassAny || mode == PassOther && other
}

// passCursorColor gives the user's terminal the focused pane's cursor
// colour (OSC 12, a colour spec the screen checked), or its own again
// (OSC 112) when that pane set none; only on a change.
func (v *view) passCursorColor() {
	color := ""
	if p := v.focused(); p != nil && p.Screen() != nil && v.pv(p).scroll == 0 {
		color = v.pv(p).frame.Cursor.Color
	}
	if color == v.cursorColor {
		return
	}
	v.cursorColor = color
	if color == "" {
		v.term.Passthrough("\x1b]112\x07")
		return
	}
	v.term.Passthrough("\x1b]12;" + color + "\x07")
}

// notify tells the client's terminal that the pane needs the user, as
// the config says: sandmux's own OSC 9, the text escaped (noticeSequence).
func (v *view) notify(info *PaneInfo) {
	if v.term == nil {
		return
	}
	if v.m.opts.Notify&NotifyTerminal != 0 {
		text := fmt.Sprintf("%s is %s", info.Name, info.State)
		if info.Reason != "" {
			text += ": " + info.Reason
		}
		v.term.Passthrough(noticeSequence(text))
	}
	if v.m.opts.Notify&NotifyBell != 0 {
		v.term.Passthrough("\a")
	}
}
