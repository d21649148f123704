package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session"
)

// The redraw loop. One command (watch) waits on one channel that every
// pane's screen pokes when it changes (vt.WithWake), and on the Backend's
// Changed; it returns a wakeMsg. That arms a frame tick (at most FPS a
// second); the frame asks each screen whether it is dirty, takes new
// frames of those on some client's page, and only then re-arms watch. So
// a pane that writes constantly costs FPS messages a second, not one per
// read, and idle panes cost no wake-up at all (Bubble Tea's own ticker
// aside, which sandmux runs at its lowest rate with nothing to draw).
type (
	// wakeMsg says which signal ended the wait.
	wakeMsg      struct{ kind wakeKind }
	frameMsg     struct{}
	infosMsg     struct{ infos []session.Info }
	wakeKind     int
	attentionMsg struct{}
)

const (
	wakeStop wakeKind = iota
	wakeChanged
	wakeDirty
)

// watch returns the command that waits for the next change, unless one is
// already waiting.
func (m *Model) watch() tea.Cmd {
	if m.watching || m.done {
		return nil
	}
	m.watching = true
	wake, changed, stop := m.wake, m.backend.Changed(), m.stop
	return func() tea.Msg {
		// The receive consumed the signal: the message carries it instead.
		select {
		case <-wake:
			return wakeMsg{kind: wakeDirty}
		case <-changed:
			return wakeMsg{kind: wakeChanged}
		case <-stop:
			return wakeMsg{kind: wakeStop}
		}
	}
}

// stopWatching makes a waiting watch return for good.
func (m *Model) stopWatching() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
}

func (m *Model) handleWake(msg wakeMsg) tea.Cmd {
	m.watching = false
	switch msg.kind {
	case wakeStop:
		return nil
	case wakeChanged:
		m.changedPending = true
	}
	if m.frameArmed {
		return nil
	}
	m.frameArmed = true
	// Leading edge: after a quiet spell the frame comes at once (a typed
	// key's echo is not held back); within a frame interval of the last
	// one it waits out the rest, so frames stay at most FPS a second.
	wait := m.lastFrame.Add(time.Second / time.Duration(m.cfg.FPS)).Sub(m.now())
	if wait <= 0 {
		// Drawn in this Update: a frame message would cost a goroutine
		// and a trip through the program's queue on every echo.
		return m.handleFrame()
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} })
}

// handleFrame drains every signal and takes new frames of the panes that
// changed, for each client that shows them.
func (m *Model) handleFrame() tea.Cmd {
	m.frameArmed = false
	m.lastFrame = m.now()
	var cmds []tea.Cmd
	select {
	case <-m.wake:
	default:
	}
	select {
	case <-m.backend.Changed():
		m.changedPending = true
	default:
	}
	if m.changedPending {
		m.changedPending = false
		b := m.backend
		cmds = append(cmds, func() tea.Msg { return infosMsg{infos: b.List()} })
	}
	for i, p := range m.panes {
		if p.screen == nil {
			continue
		}
		select {
		case <-p.screen.Dirty():
		default:
			continue
		}
		// Attention follows output, not redraws (a resize redraws too).
		if p.sess != nil {
			if out := p.sess.LastOutput(); out.After(p.lastOutput) {
				p.lastOutput, p.quietWatch = out, true
			}
		}
		if p.screen.TakeAttention() {
			m.markAttention(i, p, "bell or notification")
		}
		m.passThrough(i, p)
		m.screenChanged(p)
		m.redraw = true
	}
	cmds = append(cmds, m.watch(), m.armAttention())
	return tea.Batch(cmds...)
}

// armAttention sets one timer for the earliest moment a pane's silence
// after activity will need its attention marker in some client. It costs
// one wake-up per pane that goes quiet, and none while all are quiet.
func (m *Model) armAttention() tea.Cmd {
	if m.cfg.AttentionAfter <= 0 {
		return nil
	}
	var next time.Time
	for i, p := range m.panes {
		if !p.quietWatch || p.phase != phaseRunning || !m.wantsAttention(i, p) {
			continue
		}
		if due := p.lastOutput.Add(m.cfg.AttentionAfter); next.IsZero() || due.Before(next) {
			next = due
		}
	}
	if next.IsZero() || next.Equal(m.attnArmed) {
		return nil
	}
	m.attnArmed = next
	return tea.Tick(next.Sub(m.now()), func(time.Time) tea.Msg { return attentionMsg{} })
}

// wantsAttention reports whether some client could mark pane i: one that
// does not focus it and has not marked it yet.
func (m *Model) wantsAttention(i int, p *pane) bool {
	for _, v := range m.views {
		if i != v.focus && !v.pv(p).attention {
			return true
		}
	}
	return false
}

func (m *Model) handleAttention() tea.Cmd {
	m.attnArmed = time.Time{}
	now := m.now()
	for i, p := range m.panes {
		if p.phase != phaseRunning || !p.quietWatch || now.Sub(p.lastOutput) < m.cfg.AttentionAfter {
			continue
		}
		m.markAttention(i, p, "quiet after output")
		p.quietWatch = false // no further timer until new output
	}
	return m.armAttention()
}

// markAttention marks pane i in every client that does not focus it, and
// reports it once when some client had not marked it yet.
func (m *Model) markAttention(i int, p *pane, why string) {
	news := false
	for _, v := range m.views {
		if s := v.pv(p); i != v.focus && !s.attention {
			s.attention, news = true, true
		}
	}
	if news {
		m.redraw = true
		m.emit(Event{Kind: EventAttention, Pane: m.paneInfo(i), Detail: why})
	}
}
