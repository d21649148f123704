package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/keys/encode"
	"github.com/sandmux/sandmux/session/vt"
)

// setFocus moves focus to pane i: the page follows, the new pane's
// attention marker clears, and both panes get focus reports if they asked.
func (v *view) setFocus(i int) tea.Cmd {
	if i < 0 || i >= len(v.m.Grid()) || i == v.focusIndex() {
		return nil
	}
	old := v.focused()
	p := v.m.Grid()[i]
	v.focusKey = p.Key()
	v.pv(p).attention = false
	var cmds []tea.Cmd
	if old != nil && !v.readOnly {
		v.m.Send(old, func(modes vt.Modes) []byte { return encode.Focus(false, modes) })
	}
	if !v.readOnly {
		v.m.Send(p, func(modes vt.Modes) []byte { return encode.Focus(true, modes) })
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
	found, focus := false, v.focusIndex()
	for k, i := range idx {
		if i == focus {
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
		if i == focus || ahead < 0 {
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
	if len(v.m.Grid()) == 0 {
		return nil
	}
	return v.setFocus((v.focusIndex() + 1) % len(v.m.Grid()))
}

// turnPage shows the next or previous page and focuses its first pane.
func (v *view) turnPage(d int) tea.Cmd {
	n := v.pageSize()
	pages := (len(v.m.Grid()) + n - 1) / n
	if pages <= 1 || v.zoom {
		return nil
	}
	return v.setFocus(((v.page + d + pages) % pages) * n)
}

func (v *view) handleFocusReport(msg tea.Msg) tea.Cmd {
	p := v.focused()
	if p == nil || v.readOnly {
		return nil
	}
	_, focused := msg.(tea.FocusMsg)
	v.m.Send(p, func(modes vt.Modes) []byte { return encode.Focus(focused, modes) })
	return nil
}
