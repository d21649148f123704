package ui

import (
	"github.com/sandmux/sandmux/keys/encode"
)

import tea "charm.land/bubbletea/v2"

// handleMouse: a click focuses the pane under it (and goes to the child
// if it asked for mouse reports); the wheel scrolls back unless the child
// takes mouse reports, and a left-button drag selects (selection.go); a
// click on the status line's page numbers turns the page.
func (v *view) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if v.modal != nil {
		return nil
	}
	ev := msg.Mouse()
	idx, rects := v.pageRects()
	if v.drag != nil {
		// A drag goes on over other panes and the status line.
		if v.dragOn(msg, idx, rects) {
			return nil
		}
	}
	if ev.Y == v.height-1 {
		if _, ok := msg.(tea.MouseClickMsg); ok {
			return v.clickStatus(ev.X)
		}
		return nil
	}
	for k, i := range idx {
		r := rects[k]
		if ev.X < r.x || ev.X >= r.x+r.w || ev.Y < r.y || ev.Y >= r.y+r.h {
			continue
		}
		var cmds []tea.Cmd
		if _, click := msg.(tea.MouseClickMsg); click && i != v.focusIndex() {
			cmds = append(cmds, v.setFocus(i))
		}
		p := v.m.Grid()[i]
		e := encode.MouseEvent{X: ev.X - r.x, Y: ev.Y - r.y - 1, Button: ev.Button, Mod: ev.Mod}
		switch msg.(type) {
		case tea.MouseReleaseMsg:
			e.Release = true
		case tea.MouseMotionMsg:
			e.Motion = true
		}
		if e.Y >= 0 && p.HasSession() && v.pv(p).scroll == 0 && !v.readOnly && p.Screen() != nil {
			if b := encode.Mouse(e, p.Screen().Modes()); b != nil {
				p.Write(b) // Best effort: the child may be gone.
				return tea.Batch(cmds...)
			}
		}
		if _, wheel := msg.(tea.MouseWheelMsg); wheel {
			cmds = append(cmds, v.wheel(p, ev.Button))
		} else {
			v.dragMouse(i, msg, e.X, e.Y)
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// clickStatus turns to the page whose number was clicked.
func (v *view) clickStatus(x int) tea.Cmd {
	n := v.pageSize()
	if len(v.m.Grid()) <= n || v.zoom {
		return nil
	}
	// " sandmux " then three cells per page number.
	const lead = len(" sandmux ")
	if x < lead {
		return nil
	}
	page := (x - lead) / 3
	if page*n >= len(v.m.Grid()) {
		return nil
	}
	return v.setFocus(page * n)
}

// dragOn follows a drag that went on over another pane or the status
// line: the selection stays in its pane, clamped to its body.
func (v *view) dragOn(msg tea.MouseMsg, idx []int, rects []rect) bool {
	switch msg.(type) {
	case tea.MouseMotionMsg, tea.MouseReleaseMsg:
	default:
		v.drag = nil // a press starts anew
		return false
	}
	ev := msg.Mouse()
	for k, i := range idx {
		if v.m.Grid()[i].Key() == v.drag.key {
			r := rects[k]
			return v.dragMouse(i, msg, ev.X-r.x, ev.Y-r.y-1)
		}
	}
	v.drag = nil // its pane left the page
	return false
}
