package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// binding is one sandmux command behind the prefix key. The same table
// matches keys and writes the help overlay.
type binding struct {
	keys []string
	help string
	run  func(m *Model) tea.Cmd
	// name is how help writes keys, when not each key itself ("1…9").
	name string
	// runKey, when set instead of run, is also told which key it was.
	runKey func(m *Model, key string) tea.Cmd
}

// keymap is every prefix command.
var keymap = []binding{
	{keys: []string{"?"}, help: "show or hide this help", run: (*Model).toggleHelp},
	{keys: []string{"left"}, help: "focus the pane to the left", run: func(m *Model) tea.Cmd { return m.moveFocus(-1, 0) }},
	{keys: []string{"right"}, help: "focus the pane to the right", run: func(m *Model) tea.Cmd { return m.moveFocus(1, 0) }},
	{keys: []string{"up"}, help: "focus the pane above", run: func(m *Model) tea.Cmd { return m.moveFocus(0, -1) }},
	{keys: []string{"down"}, help: "focus the pane below", run: func(m *Model) tea.Cmd { return m.moveFocus(0, 1) }},
	{keys: []string{"o"}, help: "focus the next pane", run: (*Model).focusNext},
	{keys: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, name: "1…9", help: "focus the pane with that number (shown first in its title)",
		runKey: func(m *Model, key string) tea.Cmd { return m.setFocus(int(key[0] - '1')) }},
	{keys: []string{"n"}, help: "next page", run: func(m *Model) tea.Cmd { return m.turnPage(1) }},
	{keys: []string{"p"}, help: "previous page", run: func(m *Model) tea.Cmd { return m.turnPage(-1) }},
	{keys: []string{"z"}, help: "zoom the focused pane, or unzoom", run: (*Model).toggleZoom},
	{keys: []string{"x"}, help: "close the pane (teardown, then snapshot); on a failed close or kill, dismiss it", run: (*Model).closeFocused},
	{keys: []string{"k"}, help: "kill the pane's processes now (SIGKILL)", run: (*Model).killFocused},
	{keys: []string{"r"}, help: "restart an exited, killed or failed pane", run: (*Model).restartFocused},
	{keys: []string{"["}, help: "scrollback: arrows, pgup/pgdn, / search, n/N, q or esc to leave", run: (*Model).enterScroll},
	{keys: []string{"b"}, help: "broadcast input to the picked panes, or stop", run: (*Model).toggleBroadcast},
	{keys: []string{"space"}, help: "pick or unpick the pane for broadcast", run: (*Model).togglePick},
	{keys: []string{"q"}, help: "quit (asks while sessions run)", run: (*Model).requestQuit},
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
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	key := msg.String()
	switch m.modal {
	case modalHelp:
		m.modal = modalNone
		return nil
	case modalConfirmQuit:
		if key == "y" || key == "Y" {
			return m.startQuit()
		}
		m.modal = modalNone
		return nil
	case modalClosing, modalQuitting:
		// Input is blocked; a repeated close or quit escalates to kill.
		return m.escalate(key)
	}
	if m.scrollMode {
		return m.scrollKey(msg)
	}
	if m.prefixPending {
		m.prefixPending = false
		if key == m.cfg.Prefix {
			return m.sendKey(tea.Key(msg))
		}
		if b := lookupBinding(key); b != nil {
			if b.runKey != nil {
				return b.runKey(m, key)
			}
			return b.run(m)
		}
		return nil
	}
	if key == m.cfg.Prefix {
		m.prefixPending = true
		return nil
	}
	return m.sendKey(tea.Key(msg))
}

func (m *Model) escalate(key string) tea.Cmd {
	switch {
	case m.modal == modalQuitting && (key == "q" || key == "ctrl+c"):
		return m.startQuit()
	case m.modal == modalClosing && (key == "x" || key == "k" || key == "ctrl+c"):
		if m.killRequested {
			return nil
		}
		m.killRequested = true
		for _, p := range m.panes {
			if p.key == m.closingKey && p.sess != nil {
				b, id := m.backend, p.sess.ID()
				return func() tea.Msg { _ = b.Kill(context.Background(), id); return nil }
			}
		}
	}
	return nil
}

// sendKey writes a key to the focused pane, or to every picked pane while
// broadcasting, each encoded for that pane's own modes. Session.Write only
// queues: Update does not block.
func (m *Model) sendKey(k tea.Key) tea.Cmd {
	return m.sendInput(func(modes vt.Modes) []byte { return encodeKey(nil, k, modes) })
}

func (m *Model) sendInput(encode func(vt.Modes) []byte) tea.Cmd {
	for i, p := range m.panes {
		target := i == m.focus
		if m.broadcast {
			target = p.picked
		}
		if !target || (p.sess == nil && p.phase != phaseStarting) {
			continue
		}
		b := encode(p.frame.Modes)
		if len(b) == 0 {
			continue
		}
		if p.sess == nil {
			// The session runs (its output may show) before the model
			// learns of it: keep what is typed meanwhile, in order.
			if len(p.early)+len(b) <= maxEarlyInput {
				p.early = append(p.early, b...)
			}
			continue
		}
		_ = p.sess.Write(b) // Best effort: a full or closed queue is the pane's state, shown in its title.
		if p.scroll > 0 {
			p.scroll = 0 // typing returns to the live screen, as in tmux
			p.snapshot()
		}
	}
	return nil
}

func (m *Model) handlePaste(text string) tea.Cmd {
	if m.modal != modalNone || m.scrollMode {
		return nil
	}
	return m.sendInput(func(modes vt.Modes) []byte { return encodePaste(text, modes) })
}

func (m *Model) focused() *pane {
	if m.focus < 0 || m.focus >= len(m.panes) {
		return nil
	}
	return m.panes[m.focus]
}

func (m *Model) toggleHelp() tea.Cmd {
	if m.modal == modalHelp {
		m.modal = modalNone
	} else {
		m.modal = modalHelp
	}
	return nil
}

func (m *Model) requestQuit() tea.Cmd {
	for _, p := range m.panes {
		if p.phase == phaseRunning || p.phase == phaseStarting {
			m.modal = modalConfirmQuit
			return nil
		}
	}
	return m.startQuit()
}

func (m *Model) toggleZoom() tea.Cmd {
	m.zoom = !m.zoom
	return m.relayout()
}

func (m *Model) toggleBroadcast() tea.Cmd {
	m.broadcast = !m.broadcast
	if m.broadcast {
		any := false
		for _, p := range m.panes {
			any = any || p.picked
		}
		if p := m.focused(); !any && p != nil {
			p.picked = true
		}
	}
	return nil
}

func (m *Model) togglePick() tea.Cmd {
	if p := m.focused(); p != nil {
		p.picked = !p.picked
	}
	return nil
}

func (m *Model) closeFocused() tea.Cmd {
	p := m.focused()
	if p == nil {
		return nil
	}
	if p.alert != nil {
		// The close (or kill) already ran and failed: x again answers it.
		return m.dismissFocused()
	}
	switch p.phase {
	case phaseStarting:
		// Cancel the start; the modal shows it until the start returns,
		// and the pane goes then (handleStarted).
		m.modal, m.closingKey, m.killRequested = modalClosing, p.key, false
		p.cancel()
		return nil
	case phaseFailed, phaseKilled, phaseClosed, phaseCancelled:
		// Nothing left to tear down.
		return m.removePane(m.focus)
	}
	m.modal, m.closingKey, m.killRequested = modalClosing, p.key, false
	return closeSession(m.backend, p, false)
}

// removePane takes pane i off the grid, keeping its outcome for the exit
// summary, and closes its screen in a command.
func (m *Model) removePane(i int) tea.Cmd {
	p := m.panes[i]
	if p.sess != nil {
		p.info = p.sess.Info()
	}
	m.quitResults = append(m.quitResults, resultOf(p))
	m.panes = append(m.panes[:i], m.panes[i+1:]...)
	m.focus = min(m.focus, max(0, len(m.panes)-1))
	m.signalRewire()
	screen := p.screen
	return tea.Batch(m.relayout(), func() tea.Msg {
		if screen != nil {
			screen.Close()
		}
		return nil
	})
}

func (m *Model) killFocused() tea.Cmd {
	p := m.focused()
	if p != nil && p.phase == phaseStarting {
		p.cancel() // the pane shows the start cancelled once it returns
		return nil
	}
	if p == nil || p.sess == nil || p.phase == phaseKilled || p.phase == phaseClosed {
		return nil
	}
	p.phase = phaseClosing
	return closeSession(m.backend, p, true)
}

// closeSession tears a pane's session down in a command and reports back.
func closeSession(b Backend, p *pane, kill bool) tea.Cmd {
	id, key, gen := p.sess.ID(), p.key, p.gen
	return func() tea.Msg {
		var err error
		if kill {
			err = b.Kill(context.Background(), id)
		} else {
			err = b.Close(context.Background(), id)
		}
		return closedMsg{key: key, gen: gen, err: err}
	}
}

func (m *Model) restartFocused() tea.Cmd {
	p := m.focused()
	if p == nil || !p.restartable() {
		return nil
	}
	old, oldPhase := p.sess, p.phase
	p.alert = nil // restarting answers it, as dismissing does
	start := m.startPane(m.focus)
	if old == nil || oldPhase != phaseExited {
		return start
	}
	// An exited session still holds its PTY, and its teardown may snapshot
	// the workspace: it must settle before the new start restores into
	// the workspace or runs in it.
	b, id, key := m.backend, old.ID(), p.key
	return tea.Sequence(func() tea.Msg { return teardownMsg{key: key, err: b.Close(context.Background(), id)} }, start)
}
