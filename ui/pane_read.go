package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
)

// What the views read of a pane, and the few things they do to it. They
// get no field: a view cannot change where a pane is in its life.

// Key is the pane's stable identity; never reused.
func (p *pane) Key() int { return p.key }

// Spec is what the pane was opened with, under its current name.
func (p *pane) Spec() PaneSpec { return p.spec }

// Screen is the pane's emulator, nil until its first start.
func (p *pane) Screen() *vt.Screen { return p.screen }

// Phase is where the pane is in its life.
func (p *pane) Phase() mux.Phase { return p.phase }

// Err is why the pane failed, or how its teardown failed.
func (p *pane) Err() error { return p.err }

// Notice is what its start said, e.g. a refused restore.
func (p *pane) Notice() string { return p.notice }

// LastOutput is when the pane last wrote.
func (p *pane) LastOutput() time.Time { return p.lastOutput }

// HasSession reports whether the pane has a session to write to.
func (p *pane) HasSession() bool { return p.sess != nil }

// Write sends b to the pane's session as it is (a mouse report);
// best effort: a full or closed queue is the pane's state, in its title.
func (p *pane) Write(b []byte) {
	if p.sess != nil {
		_ = p.sess.Write(b)
	}
}

// Status is the pane's phase as its title words it.
func (p *pane) Status() string { return p.status() }

// TitleState is the pane's state as its title words it.
func (p *pane) TitleState() string { return p.titleState() }

// State is the pane's state as the user reads it.
func (p *pane) State() status.Status { return p.state() }

// Answered tells the pane's state that the user typed into it.
func (p *pane) Answered() { p.answered() }

// Restartable reports whether r restarts the pane.
func (p *pane) Restartable() bool { return p.restartable() }

// ScreenCols is how wide the pane's screen is, 0 without one.
func (p *pane) ScreenCols() int { return p.screenCols() }

// Killing reports whether the pane's close escalated to a kill.
func (p *pane) Killing() bool { return p.closeKill }

// Alert is the pane's failed close or kill ("close" or "kill", and why),
// ok false when none waits to be dismissed.
func (p *pane) Alert() (what string, err error, ok bool) {
	if p.alert == nil {
		return "", nil, false
	}
	return p.alert.what, p.alert.err, true
}

// Recording reports whether the pane's screen is recorded.
func (p *pane) Recording() bool { return p.recs.rec != nil }

// ResizeEmulator sizes the pane's screen for a view's layout; it reports
// whether the size changed.
func (p *pane) ResizeEmulator(size providers.Size) bool { return p.resizeEmulator(size) }

// SetShown says whether the pane is on some client's screen, for its
// turns at parsing output; the model sets it after every update.
func (p *pane) SetShown(on bool) {
	if p.shown.Load() != on {
		p.shown.Store(on)
	}
}

// Echoing reports whether a key was typed into the pane and what it
// caused is not drawn yet; EchoAt is when it was typed.
func (p *pane) Echoing() bool     { return p.echo.Load() }
func (p *pane) EchoAt() time.Time { return p.echoAt }
func (p *pane) EchoDrawn()        { p.echo.Store(false) }

// Mark adds a marker to the pane's recording (prefix M); ok false when
// it is not recorded.
func (p *pane) Mark() (label string, ok bool) {
	if p.recs.rec == nil {
		return "", false
	}
	p.recs.markers++
	label = fmt.Sprintf("marker %d", p.recs.markers)
	p.recs.rec.Marker(label)
	return label, true
}

// Dismiss takes pane i's alert away (x on a failed close or kill); a
// pane that was being closed goes, as the close asked.
func (s *shared) Dismiss(i int) tea.Cmd {
	if i < 0 || i >= len(s.panes) || s.panes[i].alert == nil {
		return nil
	}
	p := s.panes[i]
	p.alert = nil
	if p.phase == mux.PhaseClosed {
		return s.RemoveAt(i, nil)
	}
	return nil
}

// ListInfos is a command that reads every session's info, for a change
// the Backend signalled.
func (s *shared) ListInfos() tea.Cmd {
	b := s.backend
	return func() tea.Msg { return infosMsg{infos: b.List()} }
}

// HasAlert reports whether a failed close or kill waits to be dismissed.
func (p *pane) HasAlert() bool { return p.alert != nil }
