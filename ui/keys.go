package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/keys/encode"
	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session/vt"
)

// handleKey routes a key: to a modal when one is open, to the command
// table after the prefix, and otherwise to the focused pane (or every
// picked pane while broadcasting).
func (v *view) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if plain := msg; msg.Mod&tea.ModAlt != 0 {
		// Escape and the prefix in one read (typed fast, or batched by
		// SSH) decode as alt+prefix: take them as the two keys they were,
		// so that esc closing a list and the prefix after it both act.
		if plain.Mod &^= tea.ModAlt; plain.String() == v.m.opts.Prefix {
			esc := v.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape})
			return tea.Batch(esc, v.handleKey(plain))
		}
	}
	key := msg.String()
	v.notice = ""
	if v.m.Quitting() {
		// Input is blocked; a repeated quit escalates to kill.
		if !v.readOnly && (key == "q" || key == "ctrl+c") {
			return v.m.quit(false)
		}
		return nil
	}
	if v.modal != nil {
		return v.modalKey(msg, key)
	}
	if v.scrollMode {
		return v.scrollKey(msg)
	}
	if v.prefixPending {
		v.prefixPending = false
		if a := v.m.keys.prefix[key]; a != nil {
			return v.runAction(a)
		}
		return nil
	}
	if key == v.m.opts.Prefix {
		v.prefixPending = true
		return nil
	}
	if a := v.m.keys.root[key]; a != nil {
		return v.runAction(a)
	}
	return v.sendKey(tea.Key(msg))
}

// modalKey is what key does while the view shows a modal: the modal
// takes every key, so none reaches a pane or the key tables.
func (v *view) modalKey(msg tea.KeyPressMsg, key string) tea.Cmd {
	switch md := v.modal.(type) {
	case helpModal:
		if top, ok := v.scrollHelp(md, key); ok {
			v.modal = helpModal{top: top}
			return nil
		}
		v.modal = nil
		return nil
	case confirmQuitModal:
		v.modal = nil
		if key == "y" || key == "Y" {
			return v.m.quit(false)
		}
		return nil
	case confirmCloseModal:
		v.modal = nil
		if key == "y" || key == "Y" {
			return v.closeAt(v.m.IndexOf(md.key), true)
		}
		return nil
	case closingModal:
		// Input is blocked; a repeated close escalates to kill.
		return v.escalateClose(key)
	case *renameModal:
		return v.renameInput(msg)
	case *sessionList:
		return v.sessionsKey(msg)
	case *findState:
		return v.findInput(msg)
	case *prompt:
		return v.promptInput(msg)
	case *picker:
		return v.pickInput(msg)
	}
	return nil
}

func (v *view) escalateClose(key string) tea.Cmd {
	if key != "x" && key != "k" && key != "ctrl+c" {
		return nil
	}
	if i := v.m.IndexOf(v.closingKey()); i >= 0 {
		return v.m.CloseAt(i, true, nil)
	}
	return nil
}

// typedOnly reports whether msg is a key its view sends to the focused
// pane and nothing else: what any view shows stays as it was (the echo
// is drawn when it comes). Such an Update skips composing the views,
// which costs a look at every line and title, so a key costs the same
// beside 48 panes as beside one.
func (m *Model) typedOnly(msg tea.Msg) bool {
	cm, ok := msg.(ClientMsg)
	if !ok {
		return false
	}
	k, ok := cm.Msg.(tea.KeyPressMsg)
	if !ok {
		return false
	}
	v := m.viewByID(cm.ID)
	return v != nil && v.plainKey(k)
}

// plainKey reports whether handleKey sends k straight to the focused
// pane, changing nothing the view shows: no modal, copy mode, prefix,
// notice or broadcast; the view already the active one; the pane not
// scrolled back; k neither the prefix nor bound in the root table (an
// alt key may be escape and the prefix typed at once: not plain).
func (v *view) plainKey(k tea.KeyPressMsg) bool {
	if v.readOnly || v.modal != nil || v.scrollMode || v.prefixPending || v.notice != "" ||
		v.broadcast || v.m.active != v || v.m.Quitting() || k.Mod&tea.ModAlt != 0 {
		return false
	}
	if key := k.String(); key == v.m.opts.Prefix || v.m.keys.root[key] != nil {
		return false
	}
	p := v.focused()
	if p == nil {
		return false
	}
	s := v.panes[p.Key()] // not v.pv: a report that makes nothing
	return s != nil && s.scroll == 0
}

// sendKey writes a key to the focused pane, or to every picked pane while
// broadcasting, each encoded for that pane's own modes. Session.Write only
// queues: Update does not block.
func (v *view) sendKey(k tea.Key) tea.Cmd {
	return v.sendInput(func(modes vt.Modes) []byte { return encode.Key(nil, k, modes) })
}

func (v *view) sendInput(encode func(vt.Modes) []byte) tea.Cmd {
	if v.readOnly {
		return nil
	}
	focus := v.focusIndex()
	for i, p := range v.m.Grid() {
		target := i == focus
		if v.broadcast {
			target = v.pv(p).picked
		}
		if !target {
			continue
		}
		if v.m.Send(p, encode) {
			p.Answered()
			if s := v.pv(p); s.scroll > 0 {
				s.scroll = 0 // typing returns to the live screen, as in tmux
				v.takeFrame(p)
			}
		}
	}
	return nil
}

func (v *view) handlePaste(text string) tea.Cmd {
	if f := v.find(); f != nil {
		return v.editFind(f.query + text)
	}
	if p := v.prompt(); p != nil {
		p.add(text)
		return nil
	}
	if v.modal != nil || v.scrollMode || v.m.Quitting() {
		return nil
	}
	return v.sendInput(func(modes vt.Modes) []byte { return encode.Paste(text, modes) })
}

func (v *view) toggleHelp() tea.Cmd {
	if v.modalKind() == modalHelp {
		v.modal = nil
	} else {
		v.modal = helpModal{}
	}
	return nil
}

func (v *view) requestQuit() tea.Cmd {
	for _, p := range v.m.Grid() {
		if p.Phase() == mux.PhaseRunning || p.Phase() == mux.PhaseStarting {
			v.modal = confirmQuitModal{}
			return nil
		}
	}
	return v.m.quit(false)
}

// detach lets the client go; a view without a client to let go (the
// local one) stays.
func (v *view) detach() tea.Cmd {
	if v.detached == nil {
		v.notice = "nothing to detach from"
		return nil
	}
	f := v.detached
	v.detached = nil
	f()
	return nil
}

func (v *view) toggleZoom() tea.Cmd {
	v.zoom = !v.zoom
	return v.relayout()
}

func (v *view) toggleBroadcast() tea.Cmd {
	v.broadcast = !v.broadcast
	if v.broadcast {
		any := false
		for _, p := range v.m.Grid() {
			any = any || v.pv(p).picked
		}
		if p := v.focused(); !any && p != nil {
			v.pv(p).picked = true
		}
	}
	return nil
}

func (v *view) togglePick() tea.Cmd {
	if p := v.focused(); p != nil {
		s := v.pv(p)
		s.picked = !s.picked
	}
	return nil
}

// closeFocused closes the focused pane (x), asking first while its
// session runs: an ended pane has nothing left to lose, and a start is
// only cancelled.
func (v *view) closeFocused() tea.Cmd {
	if p := v.focused(); p != nil && !p.HasAlert() && p.Phase() == mux.PhaseRunning {
		v.modal = confirmCloseModal{p.Key()}
		return nil
	}
	return v.closeAt(v.focusIndex(), true)
}
func (v *view) killFocused() tea.Cmd    { return v.killAt(v.focusIndex()) }
func (v *view) restartFocused() tea.Cmd { return v.restartAt(v.focusIndex()) }

// closeAt closes pane i (x); modal shows the teardown over the panes
// until the pane goes, as x does (the session list shows it in its rows).
func (v *view) closeAt(i int, modal bool) tea.Cmd {
	if i < 0 || i >= len(v.m.Grid()) {
		return nil
	}
	p := v.m.Grid()[i]
	if p.HasAlert() {
		// The close (or kill) already ran and failed: x again answers it.
		return v.dismissAt(i)
	}
	switch p.Phase() {
	case mux.PhaseFailed, mux.PhaseKilled, mux.PhaseClosed, mux.PhaseCancelled:
	default:
		if modal {
			// The modal shows the teardown (or the start's cancellation)
			// until the pane goes.
			v.modal = closingModal{p.Key()}
		}
	}
	return v.m.CloseAt(i, false, nil)
}

func (v *view) killAt(i int) tea.Cmd {
	if i < 0 || i >= len(v.m.Grid()) {
		return nil
	}
	p := v.m.Grid()[i]
	if p.Phase() != mux.PhaseStarting && (!p.HasSession() || p.Phase() == mux.PhaseKilled || p.Phase() == mux.PhaseClosed) {
		return nil
	}
	return v.m.CloseAt(i, true, nil)
}

func (v *view) restartAt(i int) tea.Cmd {
	if i < 0 || i >= len(v.m.Grid()) {
		return nil
	}
	p := v.m.Grid()[i]
	if !p.Restartable() {
		v.notice = "r restarts an exited, killed or failed pane; this one is " + p.Status()
		return nil
	}
	return v.m.RestartAt(i)
}
