package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
)

// The Model is the shared side's mux.Views: what the shared panes tell the
// clients' views reaches each view here, and nowhere else.

var _ mux.Views = (*Model)(nil)

// PaneAdded lays every view out again around the new pane.
func (m *Model) PaneAdded(*mux.Pane) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.views))
	for _, v := range m.views {
		cmds = append(cmds, v.relayout())
	}
	return tea.Batch(cmds...)
}

// PaneRemoved has every view forget the pane.
func (m *Model) PaneRemoved(key, i int) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.views))
	for _, v := range m.views {
		cmds = append(cmds, v.paneRemoved(key, i))
	}
	return tea.Batch(cmds...)
}

// PaneChanged: a new screen gets each view's state of the pane afresh
// (its scroll, search and attention mark go) with a first frame; an
// ended close takes down the closing modals that showed it.
func (m *Model) PaneChanged(p *mux.Pane, c mux.Change) {
	for _, v := range m.views {
		switch c {
		case mux.ChangeStarted:
			if s := v.panes[p.Key()]; s != nil {
				s.scroll, s.search, s.attention = 0, nil, false
				v.takeFrame(p)
			} else {
				v.pv(p) // makes the view's state of p with its first frame
			}
		case mux.ChangeClosed:
			if v.closing(p.Key()) {
				v.modal = nil
			}
		}
	}
}

// NeedsAttention marks p in every view that does not focus it and tells
// that view's terminal.
func (m *Model) NeedsAttention(p *mux.Pane, info *PaneInfo) bool {
	away := len(m.views) == 0
	for _, v := range m.views {
		if v.focused() == p {
			continue
		}
		away = true
		v.pv(p).attention = true
		v.notify(info)
	}
	return away
}

// Settled shows every view its last frame, then stops the view
// recordings: each cast ends on what its client saw.
func (m *Model) Settled() []tea.Cmd {
	for _, v := range m.views {
		v.show()
	}
	var cmds []tea.Cmd
	for id := range m.viewRecs {
		cmds = append(cmds, m.stopViewRecording(id, "the server quit", nil, mux.NoView))
	}
	return cmds
}

// BodySize is pane i's body in the sizing view's layout: the active
// client's, or, with none attached, a layout of the server's own size.
func (m *Model) BodySize(i int) providers.Size { return m.sizer().bodySize(i) }

func (m *Model) sizer() *view {
	if m.active != nil {
		return m.active
	}
	return &view{m: m, width: m.layoutW, height: m.layoutH, panes: map[int]*paneView{}}
}

// Notice sets client id's notice.
func (m *Model) Notice(id int, text string) {
	if v := m.viewByID(id); v != nil {
		v.notice = text
		m.Redraw()
	}
}

// quit starts the quit (or escalates it) and takes down every view's
// modal: the quitting one covers them all.
func (m *Model) quit(kill bool) tea.Cmd {
	cmd := m.StartQuit(kill)
	for _, v := range m.views {
		if v.find() != nil {
			v.closeFind() // its search is cancelled
		}
		v.modal = nil
	}
	return cmd
}

// listing reports whether some view shows the list of every pane.
func (m *Model) listing() bool {
	for _, v := range m.views {
		if v.sessions() != nil {
			return true
		}
	}
	return false
}
