package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// binding is one sandmux command behind the prefix key. The same table
// matches keys and writes the help overlay.
type binding struct {
	keys []string
	help string
	run  func(v *view) tea.Cmd
	// name is how help writes keys, when not each key itself ("1…9").
	name string
	// runKey, when set instead of run, is also told which key it was.
	runKey func(v *view, key string) tea.Cmd
	// touches: the command changes a pane or the server, so a read-only
	// client may not run it.
	touches bool
}

// keymap is every prefix command.
var keymap = []binding{
	{keys: []string{"?"}, help: "show or hide this help", run: (*view).toggleHelp},
	{keys: []string{"left"}, help: "focus the pane to the left", run: func(v *view) tea.Cmd { return v.moveFocus(-1, 0) }},
	{keys: []string{"right"}, help: "focus the pane to the right", run: func(v *view) tea.Cmd { return v.moveFocus(1, 0) }},
	{keys: []string{"up"}, help: "focus the pane above", run: func(v *view) tea.Cmd { return v.moveFocus(0, -1) }},
	{keys: []string{"down"}, help: "focus the pane below", run: func(v *view) tea.Cmd { return v.moveFocus(0, 1) }},
	{keys: []string{"o"}, help: "focus the next pane", run: (*view).focusNext},
	{keys: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, name: "1…9", help: "focus the pane with that number (shown first in its title)",
		runKey: func(v *view, key string) tea.Cmd { return v.setFocus(int(key[0] - '1')) }},
	{keys: []string{"n"}, help: "next page", run: func(v *view) tea.Cmd { return v.turnPage(1) }},
	{keys: []string{"p"}, help: "previous page", run: func(v *view) tea.Cmd { return v.turnPage(-1) }},
	{keys: []string{"w"}, help: "list every session: / or typing filters, enter goes to it, x k r act on it", run: (*view).openSessions},
	{keys: []string{"z"}, help: "zoom the focused pane, or unzoom", run: (*view).toggleZoom},
	{keys: []string{"x"}, help: "close the pane, asking if it runs (teardown, snapshot); dismiss a failed close.", run: (*view).closeFocused, touches: true},
	{keys: []string{"k"}, help: "kill the pane's processes now (SIGKILL)", run: (*view).killFocused, touches: true},
	{keys: []string{"r"}, help: "restart an exited, killed or failed pane", run: (*view).restartFocused, touches: true},
	{keys: []string{"["}, help: "scrollback: arrows, pgup/pgdn, / search, n/N, q or esc to leave", run: (*view).enterScroll},
	{keys: []string{"/"}, help: "search all panes' screens and scrollback; enter opens the match there", run: (*view).openFind},
	{keys: []string{"b"}, help: "broadcast input to the picked panes, or stop", run: (*view).toggleBroadcast, touches: true},
	{keys: []string{"space"}, help: "pick or unpick the pane for broadcast", run: (*view).togglePick, touches: true},
	{keys: []string{","}, help: "rename the pane", run: (*view).startRename, touches: true},
	{keys: []string{"R"}, help: "record the pane to a cast file, or stop", run: (*view).toggleRecording, touches: true},
	{keys: []string{"M"}, help: "add a marker to the pane's recording", run: (*view).markRecording, touches: true},
	{keys: []string{"S"}, help: "save the pane's last minutes (as [record] retain keeps) to a cast file", run: (*view).saveLastFocused, touches: true},
	{keys: []string{"V"}, help: "record this client's whole view to a cast file, or stop", run: (*view).toggleViewRecording, touches: true},
	{keys: []string{"d"}, help: "detach this client: everything goes on", run: (*view).detach},
	{keys: []string{"q"}, help: "quit (asks while sessions run)", run: (*view).requestQuit, touches: true},
}

func lookupBinding(key string) *binding {
	for i := range keymap {
		for _, k := range keymap[i].keys {
			if k == key {
				return &keymap[i]
			}
		}
	}
	return nil
}

// handleKey routes a key: to a modal when one is open, to the command
// table after the prefix, and otherwise to the focused pane (or every
// picked pane while broadcasting).
func (v *view) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if plain := msg; msg.Mod&tea.ModAlt != 0 {
		// Escape and the prefix in one read (typed fast, or batched by
		// SSH) decode as alt+prefix: take them as the two keys they were,
		// so that esc closing a list and the prefix after it both act.
		if plain.Mod &^= tea.ModAlt; plain.String() == v.m.cfg.Prefix {
			esc := v.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape})
			return tea.Batch(esc, v.handleKey(plain))
		}
	}
	key := msg.String()
	v.notice = ""
	if v.m.quitting {
		// Input is blocked; a repeated quit escalates to kill.
		if !v.readOnly && (key == "q" || key == "ctrl+c") {
			return v.m.startQuit(false)
		}
		return nil
	}
	switch v.modal {
	case modalHelp:
		v.modal = modalNone
		return nil
	case modalConfirmQuit:
		v.modal = modalNone
		if key == "y" || key == "Y" {
			return v.m.startQuit(false)
		}
		return nil
	case modalConfirmClose:
		v.modal = modalNone
		if key == "y" || key == "Y" {
			return v.closeAt(v.m.indexOf(v.closingKey), true)
		}
		return nil
	case modalClosing:
		// Input is blocked; a repeated close escalates to kill.
		return v.escalateClose(key)
	case modalRename:
		return v.renameInput(msg)
	case modalList:
		return v.sessionsKey(msg)
	case modalFind:
		return v.findInput(msg)
	}
	if v.scrollMode {
		return v.scrollKey(msg)
	}
	if v.prefixPending {
		v.prefixPending = false
		if key == v.m.cfg.Prefix {
			return v.sendKey(tea.Key(msg))
		}
		b := lookupBinding(key)
		switch {
		case b == nil:
			return nil
		case b.touches && v.readOnly:
			v.notice = "read-only"
			return nil
		case b.runKey != nil:
			return b.runKey(v, key)
		}
		return b.run(v)
	}
	if key == v.m.cfg.Prefix {
		v.prefixPending = true
		return nil
	}
	return v.sendKey(tea.Key(msg))
}

func (v *view) escalateClose(key string) tea.Cmd {
	if key != "x" && key != "k" && key != "ctrl+c" {
		return nil
	}
	if i := v.m.indexOf(v.closingKey); i >= 0 {
		return v.m.closePane(i, true, nil)
	}
	return nil
}

// sendKey writes a key to the focused pane, or to every picked pane while
// broadcasting, each encoded for that pane's own modes. Session.Write only
// queues: Update does not block.
func (v *view) sendKey(k tea.Key) tea.Cmd {
	return v.sendInput(func(modes vt.Modes) []byte { return encodeKey(nil, k, modes) })
}

func (v *view) sendInput(encode func(vt.Modes) []byte) tea.Cmd {
	if v.readOnly {
		return nil
	}
	for i, p := range v.m.panes {
		target := i == v.focus
		if v.broadcast {
			target = v.pv(p).picked
		}
		if !target {
			continue
		}
		if v.m.input(p, encode) {
			p.answered()
			if s := v.pv(p); s.scroll > 0 {
				s.scroll = 0 // typing returns to the live screen, as in tmux
				v.takeFrame(p)
			}
		}
	}
	return nil
}

// input writes encode's bytes, for the pane's current modes, to its
// session; it reports whether anything was sent or kept for later.
func (m *Model) input(p *pane, encode func(vt.Modes) []byte) bool {
	if p.screen == nil || (p.sess == nil && p.phase != phaseStarting) {
		return false
	}
	b := encode(p.screen.Modes())
	if len(b) == 0 {
		return false
	}
	if p.sess == nil {
		// The session runs (its output may show) before the model learns
		// of it: keep what is typed meanwhile, in order.
		if len(p.early)+len(b) <= maxEarlyInput {
			p.early = append(p.early, b...)
		}
		return true
	}
	_ = p.sess.Write(b) // Best effort: a full or closed queue is the pane's state, shown in its title.
	return true
}

func (v *view) handlePaste(text string) tea.Cmd {
	if v.modal == modalFind && v.find != nil {
		return v.editFind(v.find.query + text)
	}
	if v.modal != modalNone || v.scrollMode || v.m.quitting {
		return nil
	}
	return v.sendInput(func(modes vt.Modes) []byte { return encodePaste(text, modes) })
}

func (v *view) toggleHelp() tea.Cmd {
	if v.modal == modalHelp {
		v.modal = modalNone
	} else {
		v.modal = modalHelp
	}
	return nil
}

func (v *view) requestQuit() tea.Cmd {
	for _, p := range v.m.panes {
		if p.phase == phaseRunning || p.phase == phaseStarting {
			v.modal = modalConfirmQuit
			return nil
		}
	}
	return v.m.startQuit(false)
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
		for _, p := range v.m.panes {
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
	if p := v.focused(); p != nil && p.alert == nil && p.phase == phaseRunning {
		v.modal, v.closingKey = modalConfirmClose, p.key
		return nil
	}
	return v.closeAt(v.focus, true)
}
func (v *view) killFocused() tea.Cmd    { return v.killAt(v.focus) }
func (v *view) restartFocused() tea.Cmd { return v.restartAt(v.focus) }

// closeAt closes pane i (x); modal shows the teardown over the panes
// until the pane goes, as x does (the session list shows it in its rows).
func (v *view) closeAt(i int, modal bool) tea.Cmd {
	if i < 0 || i >= len(v.m.panes) {
		return nil
	}
	p := v.m.panes[i]
	if p.alert != nil {
		// The close (or kill) already ran and failed: x again answers it.
		return v.dismissAt(i)
	}
	switch p.phase {
	case phaseFailed, phaseKilled, phaseClosed, phaseCancelled:
	default:
		if modal {
			// The modal shows the teardown (or the start's cancellation)
			// until the pane goes.
			v.modal, v.closingKey = modalClosing, p.key
		}
	}
	return v.m.closePane(i, false, nil)
}

func (v *view) killAt(i int) tea.Cmd {
	if i < 0 || i >= len(v.m.panes) {
		return nil
	}
	p := v.m.panes[i]
	if p.phase != phaseStarting && (p.sess == nil || p.phase == phaseKilled || p.phase == phaseClosed) {
		return nil
	}
	return v.m.closePane(i, true, nil)
}

func (v *view) restartAt(i int) tea.Cmd {
	if i < 0 || i >= len(v.m.panes) {
		return nil
	}
	p := v.m.panes[i]
	if !p.restartable() {
		v.notice = "r restarts an exited, killed or failed pane; this one is " + p.status()
		return nil
	}
	return v.m.restartPane(i)
}
