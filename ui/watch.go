package ui

import (
	"reflect"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session"
)

// The redraw loop. One command (watch) blocks until any screen is dirty,
// the Backend reports a change, or the pane set changed; it returns a
// wakeMsg. That arms a frame tick (at most FPS a second); the frame drains
// every signal, snapshots the dirty panes, and only then re-arms watch. So
// a pane that writes constantly costs FPS messages a second, not one per
// read, and an idle program has no timer at all.
type (
	// wakeMsg says which signal ended the wait: the case index of watch.
	wakeMsg struct {
		kind wakeKind
		key  int // the pane, for wakeDirty
	}
	frameMsg     struct{}
	infosMsg     struct{ infos []session.Info }
	wakeKind     int
	attentionMsg struct{}
)

const (
	wakeRewire wakeKind = iota
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
	cases := []reflect.SelectCase{
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(m.rewire)},
		{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(m.backend.Changed())},
	}
	var keys []int
	for _, p := range m.panes {
		if p.screen != nil {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(p.screen.Dirty())})
			keys = append(keys, p.key)
		}
	}
	return func() tea.Msg {
		// The receive consumed the signal: the message carries it instead.
		chosen, _, _ := reflect.Select(cases)
		switch chosen {
		case 0:
			return wakeMsg{kind: wakeRewire}
		case 1:
			return wakeMsg{kind: wakeChanged}
		}
		return wakeMsg{kind: wakeDirty, key: keys[chosen-2]}
	}
}

// signalRewire makes a waiting watch return, so the next one watches the
// current panes.
func (m *Model) signalRewire() {
	select {
	case m.rewire <- struct{}{}:
	default:
	}
}

func (m *Model) handleWake(msg wakeMsg) tea.Cmd {
	m.watching = false
	switch msg.kind {
	case wakeChanged:
		m.changedPending = true
	case wakeDirty:
		for _, p := range m.panes {
			if p.key == msg.key {
				p.dirtyPending = true
			}
		}
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

// handleFrame drains every signal and redraws the panes that changed.
func (m *Model) handleFrame() tea.Cmd {
	m.frameArmed = false
	m.lastFrame = m.now()
	var cmds []tea.Cmd
	select {
	case <-m.rewire:
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
	shown, _ := m.pageRects()
	for i, p := range m.panes {
		if p.screen == nil {
			continue
		}
		for len(shown) > 0 && shown[0] < i {
			shown = shown[1:] // both ascend: shown[0] is the next pane on screen
		}
		select {
		case <-p.screen.Dirty():
		default:
			if !p.dirtyPending {
				continue
			}
		}
		// Attention follows output, not redraws (a resize redraws too).
		if p.sess != nil {
			if out := p.sess.LastOutput(); out.After(p.lastOutput) {
				p.lastOutput, p.quietWatch = out, true
			}
		}
		if p.screen.TakeAttention() && i != m.focus {
			p.attention = true
		}
		m.passClipboard(p)
		m.passSignals(i, p)
		if len(shown) > 0 && shown[0] == i {
			p.dirtyPending = false
			p.snapshot()
		} else {
			p.dirtyPending = true // drawn when its page is shown
		}
	}
	cmds = append(cmds, m.watch(), m.armAttention())
	return tea.Batch(cmds...)
}

// armAttention sets one timer for the earliest moment a pane's silence
// after activity will need its attention marker. It costs one wake-up per
// pane that goes quiet, and none while all are quiet.
func (m *Model) armAttention() tea.Cmd {
	if m.cfg.AttentionAfter <= 0 {
		return nil
	}
	var next time.Time
	for i, p := range m.panes {
		if i == m.focus || p.attention || !p.quietWatch || p.phase != phaseRunning {
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

func (m *Model) handleAttention() tea.Cmd {
	m.attnArmed = time.Time{}
	now := m.now()
	for i, p := range m.panes {
		if i != m.focus && p.phase == phaseRunning && p.quietWatch && !p.attention &&
			now.Sub(p.lastOutput) >= m.cfg.AttentionAfter {
			p.attention = true
			p.quietWatch = false // no further timer until new output
		}
	}
	return m.armAttention()
}
