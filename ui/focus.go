package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// setFocus moves focus to pane i: the page follows, the new pane's
// attention marker clears, and both panes get focus reports if they asked.
func (v *view) setFocus(i int) tea.Cmd {
	if i < 0 || i >= len(v.m.panes) || i == v.focus {
		return nil
	}
	old := v.focused()
	v.focus = i
	p := v.m.panes[i]
	v.pv(p).attention = false
	var cmds []tea.Cmd
	if old != nil && !v.readOnly {
		v.m.input(old, func(modes vt.Modes) []byte { return encodeFocus(false, modes) })
	}
	if !v.readOnly {
		v.m.input(p, func(modes vt.Modes) []byte { return encodeFocus(true, modes) })
	}
	if n := v.pageSize(); !v.zoom && i/n != v.page {
		v.page = i / n
		cmds = append(cmds, v.relayout())
	}
	if v.zoom {
		cmds = append(cmds, v.relayout())
	}
	return tea.Batch(cmds...)
}

// moveFocus focuses the nearest pane in direction (dx, dy) on the page.
func (v *view) moveFocus(dx, dy int) tea.Cmd {
	idx, rects := v.pageRects()
	var cur rect
	found := false
	for k, i := range idx {
		if i == v.focus {
			cur, found = rects[k], true
		}
	}
	if !found {
		return nil
	}
	best, bestDist := -1, 0
	for k, i := range idx {
		r := rects[k]
		var ahead, dist int
		switch {
		case dx > 0:
			ahead, dist = r.x-(cur.x+cur.w), abs(r.y-cur.y)
		case dx < 0:
			ahead, dist = cur.x-(r.x+r.w), abs(r.y-cur.y)
		case dy > 0:
			ahead, dist = r.y-(cur.y+cur.h), abs(r.x-cur.x)
		default:
			ahead, dist = cur.y-(r.y+r.h), abs(r.x-cur.x)
		}
		if i == v.focus || ahead < 0 {
			continue
		}
		if d := ahead*1000 + dist; best < 0 || d < bestDist {
			best, bestDist = i, d
		}
	}
	if best < 0 {
		return nil
	}
	return v.setFocus(best)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (v *view) focusNext() tea.Cmd {
	if len(v.m.panes) == 0 {
		return nil
	}
	return v.setFocus((v.focus + 1) % len(v.m.panes))
}

// turnPage shows the next or previous page and focuses its first pane.
func (v *view) turnPage(d int) tea.Cmd {
	n := v.pageSize()
	pages := (len(v.m.panes) + n - 1) / n
	if pages <= 1 || v.zoom {
		return nil
	}
	return v.setFocus(((v.page + d + pages) % pages) * n)
}

// handleMouse: a click focuses the pane under it (and goes to the child
// if it asked for mouse reports); the wheel scrolls back unless the child
// takes mouse reports; a click on the status line's page numbers turns
// the page.
func (v *view) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if v.modal != modalNone {
		return nil
	}
	ev := msg.Mouse()
	if ev.Y == v.height-1 {
		if _, ok := msg.(tea.MouseClickMsg); ok {
			return v.clickStatus(ev.X)
		}
		return nil
	}
	idx, rects := v.pageRects()
	for k, i := range idx {
		r := rects[k]
		if ev.X < r.x || ev.X >= r.x+r.w || ev.Y < r.y || ev.Y >= r.y+r.h {
			continue
		}
		var cmds []tea.Cmd
		if _, click := msg.(tea.MouseClickMsg); click && i != v.focus {
			cmds = append(cmds, v.setFocus(i))
		}
		p := v.m.panes[i]
		e := mouseEvent{X: ev.X - r.x, Y: ev.Y - r.y - 1, Button: ev.Button, Mod: ev.Mod}
		switch msg.(type) {
		case tea.MouseReleaseMsg:
			e.Release = true
		case tea.MouseMotionMsg:
			e.Motion = true
		}
		if e.Y >= 0 && p.sess != nil && v.pv(p).scroll == 0 && !v.readOnly && p.screen != nil {
			if b := encodeMouse(e, p.screen.Modes()); b != nil {
				_ = p.sess.Write(b) // Best effort: the child may be gone.
				return tea.Batch(cmds...)
			}
		}
		if _, wheel := msg.(tea.MouseWheelMsg); wheel {
			cmds = append(cmds, v.wheel(p, ev.Button))
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// clickStatus turns to the page whose number was clicked.
func (v *view) clickStatus(x int) tea.Cmd {
	n := v.pageSize()
	if len(v.m.panes) <= n || v.zoom {
		return nil
	}
	// " sandmux " then three cells per page number.
	const lead = len(" sandmux ")
	if x < lead {
		return nil
	}
	page := (x - lead) / 3
	if page*n >= len(v.m.panes) {
		return nil
	}
	return v.setFocus(page * n)
}

func (v *view) handleFocusReport(msg tea.Msg) tea.Cmd {
	p := v.focused()
	if p == nil || v.readOnly {
		return nil
	}
	_, focused := msg.(tea.FocusMsg)
	v.m.input(p, func(modes vt.Modes) []byte { return encodeFocus(focused, modes) })
	return nil
}
