package ui

import (
	tea "charm.land/bubbletea/v2"
)

// setFocus moves focus to pane i: the page follows, the new pane's
// attention marker clears, and both panes get focus reports if they asked.
func (m *Model) setFocus(i int) tea.Cmd {
	if i < 0 || i >= len(m.panes) || i == m.focus {
		return nil
	}
	old := m.focused()
	m.focus = i
	p := m.panes[i]
	p.attention = false
	var cmds []tea.Cmd
	if old != nil && old.sess != nil {
		_ = old.sess.Write(encodeFocus(false, old.frame.Modes)) // Best effort: a report to a closing pane is moot.
	}
	if p.sess != nil {
		_ = p.sess.Write(encodeFocus(true, p.frame.Modes)) // Best effort, as above.
	}
	if n := m.pageSize(); !m.zoom && i/n != m.page {
		m.page = i / n
		cmds = append(cmds, m.relayout())
	}
	if m.zoom {
		cmds = append(cmds, m.relayout())
	}
	return tea.Batch(cmds...)
}

// moveFocus focuses the nearest pane in direction (dx, dy) on the page.
func (m *Model) moveFocus(dx, dy int) tea.Cmd {
	idx, rects := m.pageRects()
	var cur rect
	found := false
	for k, i := range idx {
		if i == m.focus {
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
		if i == m.focus || ahead < 0 {
			continue
		}
		if d := ahead*1000 + dist; best < 0 || d < bestDist {
			best, bestDist = i, d
		}
	}
	if best < 0 {
		return nil
	}
	return m.setFocus(best)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (m *Model) focusNext() tea.Cmd {
	if len(m.panes) == 0 {
		return nil
	}
	return m.setFocus((m.focus + 1) % len(m.panes))
}

// turnPage shows the next or previous page and focuses its first pane.
func (m *Model) turnPage(d int) tea.Cmd {
	n := m.pageSize()
	pages := (len(m.panes) + n - 1) / n
	if pages <= 1 || m.zoom {
		return nil
	}
	return m.setFocus(((m.page + d + pages) % pages) * n)
}

// handleMouse: a click focuses the pane under it (and goes to the child
// if it asked for mouse reports); the wheel scrolls back unless the child
// takes mouse reports; a click on the status line's page numbers turns
// the page.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.modal != modalNone {
		return nil
	}
	ev := msg.Mouse()
	if ev.Y == m.height-1 {
		if _, ok := msg.(tea.MouseClickMsg); ok {
			return m.clickStatus(ev.X)
		}
		return nil
	}
	idx, rects := m.pageRects()
	for k, i := range idx {
		r := rects[k]
		if ev.X < r.x || ev.X >= r.x+r.w || ev.Y < r.y || ev.Y >= r.y+r.h {
			continue
		}
		var cmds []tea.Cmd
		if _, click := msg.(tea.MouseClickMsg); click && i != m.focus {
			cmds = append(cmds, m.setFocus(i))
		}
		p := m.panes[i]
		e := mouseEvent{X: ev.X - r.x, Y: ev.Y - r.y - 1, Button: ev.Button, Mod: ev.Mod}
		switch msg.(type) {
		case tea.MouseReleaseMsg:
			e.Release = true
		case tea.MouseMotionMsg:
			e.Motion = true
		}
		if e.Y >= 0 && p.sess != nil && p.scroll == 0 {
			if b := encodeMouse(e, p.frame.Modes); b != nil {
				_ = p.sess.Write(b) // Best effort: the child may be gone.
				return tea.Batch(cmds...)
			}
		}
		if _, wheel := msg.(tea.MouseWheelMsg); wheel {
			cmds = append(cmds, m.wheel(p, ev.Button))
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// clickStatus turns to the page whose number was clicked.
func (m *Model) clickStatus(x int) tea.Cmd {
	n := m.pageSize()
	if len(m.panes) <= n || m.zoom {
		return nil
	}
	// " sandmux " then three cells per page number.
	const lead = len(" sandmux ")
	if x < lead {
		return nil
	}
	page := (x - lead) / 3
	if page*n >= len(m.panes) {
		return nil
	}
	return m.setFocus(page * n)
}

func (m *Model) handleFocusReport(msg tea.Msg) tea.Cmd {
	p := m.focused()
	if p == nil || p.sess == nil {
		return nil
	}
	_, focused := msg.(tea.FocusMsg)
	_ = p.sess.Write(encodeFocus(focused, p.frame.Modes)) // Best effort.
	return nil
}
