package mux

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
)

// What the views read of a pane, and the few things they do to it. They
// get no field: a view cannot change where a pane is in its life.

// Key is the pane's stable identity; never reused.
func (p *Pane) Key() int { return p.key }

// Spec is what the pane was opened with, under its current name.
func (p *Pane) Spec() PaneSpec { return p.spec }

// Screen is the pane's emulator, nil until its first start.
func (p *Pane) Screen() *vt.Screen { return p.screen }

// Phase is where the pane is in its life.
func (p *Pane) Phase() Phase { return p.phase }

// Err is why the pane failed, or how its teardown failed.
func (p *Pane) Err() error { return p.err }

// Notice is what its start said, e.g. a refused restore.
func (p *Pane) Notice() string { return p.notice }

// LastOutput is when the pane last wrote.
func (p *Pane) LastOutput() time.Time { return p.lastOutput }

// HasSession reports whether the pane has a session to write to.
func (p *Pane) HasSession() bool { return p.sess != nil }

// Write sends b to the pane's session as it is (a mouse report);
// best effort: a full or closed queue is the pane's state, in its title.
func (p *Pane) Write(b []byte) {
	if p.sess != nil {
		_ = p.sess.Write(b)
	}
}

// Status is the pane's phase as its title words it.
func (p *Pane) Status() string { return p.status() }

// TitleState is the pane's state as its title words it.
func (p *Pane) TitleState() string { return p.titleState() }

// State is the pane's state as the user reads it.
func (p *Pane) State() status.Status { return p.state() }

// Answered tells the pane's state that the user typed into it.
func (p *Pane) Answered() { p.answered() }

// Restartable reports whether r restarts the pane.
func (p *Pane) Restartable() bool { return p.restartable() }

// ScreenCols is how wide the pane's screen is, 0 without one.
func (p *Pane) ScreenCols() int { return p.screenCols() }

// Killing reports whether the pane's close escalated to a kill.
func (p *Pane) Killing() bool { return p.closeKill }

// Alert is the pane's failed close or kill ("close" or "kill", and why),
// ok false when none waits to be dismissed.
func (p *Pane) Alert() (what string, err error, ok bool) {
	if p.alert == nil {
		return "", nil, false
	}
	return p.alert.what, p.alert.err, true
}

// Recording reports whether the pane's screen is recorded.
func (p *Pane) Recording() bool { return p.recs.rec != nil }

// ResizeEmulator sizes the pane's screen for a view's layout; it reports
// whether the size changed.
func (p *Pane) ResizeEmulator(size providers.Size) bool { return p.resizeEmulator(size) }

// SetShown says whether the pane is on some client's screen, and
// whether some client has it focused there, for its turns at parsing
// output; the model sets it after every update.
func (p *Pane) SetShown(on, focused bool) {
	focused = focused && on
	seen := (on && !p.shown.Load()) || (focused && !p.focused.Load())
	p.shown.Store(on)
	p.focused.Store(focused)
	if seen && p.turns != nil {
		p.turns.Hurry() // on screen or focused now: read what it wrote at once
	}
}

// Echoing reports whether a key was typed into the pane and what it
// caused is not drawn yet; EchoAt is when it was typed.
func (p *Pane) Echoing() bool     { return p.echo.Load() }
func (p *Pane) EchoAt() time.Time { return p.echoAt }
func (p *Pane) EchoDrawn()        { p.echo.Store(false) }

// Mark adds a marker to the pane's recording (prefix M); ok false when
// it is not recorded.
func (p *Pane) Mark() (label string, ok bool) {
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
func (s *Shared) Dismiss(i int) tea.Cmd {
	if i < 0 || i >= len(s.panes) || s.panes[i].alert == nil {
		return nil
	}
	p := s.panes[i]
	p.alert = nil
	if p.phase == PhaseClosed {
		return s.RemoveAt(i, nil)
	}
	return nil
}

// ListInfos is a command that reads every session's info, for a change
// the Backend signalled.
func (s *Shared) ListInfos() tea.Cmd {
	b := s.backend
	return func() tea.Msg { return infosMsg{infos: b.List()} }
}

// HasAlert reports whether a failed close or kill waits to be dismissed.
func (p *Pane) HasAlert() bool { return p.alert != nil }

// Shown reports whether the pane is on some client's screen, as the
// views last said (SetShown).
func (p *Pane) Shown() bool { return p.shown.Load() }

// Focused reports whether some client has the pane focused on its
// screen, as the views last said (SetShown).
func (p *Pane) Focused() bool { return p.focused.Load() }
