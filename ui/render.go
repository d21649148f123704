package ui

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/ui/term"
)

// Chrome pens (pen.go). Pane bodies are rendered by vt's run renderer;
// pens draw only titles, the status line and overlays (in a box).
var (
	titleStyle      = newPen(252, 237, false)
	titleFocused    = newPen(16, 45, true)
	titlePicked     = newPen(16, 214, true)
	titlePickedIdle = newPen(214, 237, true)
	titleFailed     = newPen(231, 124, false)
	statusStyle     = newPen(250, 235, false)
	statusAccent    = newPen(16, 214, true)
	emptyBodyStyle  = newPen(244, -1, false)
)

// area is the part of the screen the panes share: all but the status line.
func (v *view) area() (w, h int) { return v.width, max(0, v.height-1) }

// pageSize is how many panes one page holds.
func (v *view) pageSize() int {
	w, h := v.area()
	return perPage(w, h)
}

// layoutKey is what a view's layout depends on.
type layoutKey struct{ w, h, panes, page, zoomed int }

// pageRects returns the panes shown now (indices) and their rects. They
// are laid out once for each change of what they depend on (size, zoom,
// page, the number of panes), and kept on the view: callers must not
// change the slices.
func (v *view) pageRects() ([]int, []rect) {
	w, h := v.area()
	key := layoutKey{w, h, len(v.m.Grid()), v.page, -1}
	if v.zoom {
		key.zoomed = v.focusIndex()
	}
	if key != v.layoutKey || !v.laidOut {
		v.layoutKey, v.laidOut = key, true
		v.layoutIdx, v.layoutRects = v.layOut()
	}
	return v.layoutIdx, v.layoutRects
}

// layOut computes the page's panes and their rects.
func (v *view) layOut() ([]int, []rect) {
	w, h := v.area()
	if len(v.m.Grid()) == 0 {
		return nil, nil
	}
	if v.zoom {
		return []int{v.focusIndex()}, []rect{{0, 0, w, h}}
	}
	n := v.pageSize()
	first := min(v.page*n, (len(v.m.Grid())-1)/n*n)
	last := min(len(v.m.Grid()), first+n)
	idx := make([]int, 0, last-first)
	for i := first; i < last; i++ {
		idx = append(idx, i)
	}
	rects := layoutPage(len(idx), w, h)
	if len(rects) != len(idx) {
		return nil, nil // no room to lay anything out
	}
	return idx, rects
}

// markShown tells each pane's sink whether the pane is on some client's
// screen, and whether it is that client's focus.
func (m *Model) markShown() {
	if m.shownScratch == nil {
		m.shownScratch = map[int]shownAs{}
	}
	on := m.shownScratch // reused: this runs after every message
	clear(on)
	for _, v := range m.views {
		idx, _ := v.pageRects()
		focus := v.focusIndex()
		for _, i := range idx {
			as := shownOn
			if i == focus {
				as = shownFocused
			}
			key := m.Grid()[i].Key()
			on[key] = max(on[key], as)
		}
	}
	for _, p := range m.Grid() {
		as := on[p.Key()]
		p.SetShown(as >= shownOn, as == shownFocused)
	}
}

// shownAs is how a pane is on the clients' screens: the most any shows it.
type shownAs uint8

const (
	shownOff shownAs = iota
	shownOn
	shownFocused
)

func (v *view) visible(i int) bool {
	idx, _ := v.pageRects()
	for _, j := range idx {
		if j == i {
			return true
		}
	}
	return false
}

// bodySize is the size of pane i's body where it is (or would be) shown.
func (v *view) bodySize(i int) providers.Size {
	idx, rects := v.pageRects()
	for k, j := range idx {
		if j == i {
			return bodySizeOf(rects[k])
		}
	}
	if len(rects) > 0 {
		// Off-page panes get the size of a page's first pane.
		return bodySizeOf(rects[0])
	}
	return providers.Size{Cols: 80, Rows: 23}
}

// View is empty: Bubble Tea's renderer is off, and Update hands each
// client's frame to that client's Terminal.
func (m *Model) View() tea.View { return tea.View{} }

// overlayText is what covers the panes: the quit's teardown over any
// modal, else the view's modal, if any.
func (v *view) overlayText() (string, bool) {
	if v.m.Quitting() {
		return v.teardownText(), true
	}
	switch md := v.modal.(type) {
	case closingModal:
		return v.teardownText(), true
	case helpModal:
		return v.helpFrame(md), true
	case confirmQuitModal:
		return v.confirmText(), true
	case confirmCloseModal:
		return v.confirmCloseText(), true
	case *renameModal:
		return v.renamePrompt(md), true
	case *sessionList:
		return v.sessionsText(), true
	case *findState:
		return v.findText(), true
	case *prompt:
		return v.promptText(), true
	case *picker:
		return v.pickerText(), true
	}
	return "", false
}

// compose composes the screen's lines, the overlay if one is open, and where
// the real cursor goes (nil: hidden), in slices of their own.
func (v *view) compose() ([]string, *tea.Cursor) {
	lines, _, cursor := v.composeParts()
	if cursor != nil {
		c := *cursor
		cursor = &c
	}
	return slices.Clone(lines), cursor
}

// composeParts is compose with where the parts of each line start (nil
// for the lines an overlay or a notice covers, drawn whole), in the
// view's own slices, which the next call reuses: for a Terminal, which
// copies what it is handed.
func (v *view) composeParts() ([]string, [][]term.Cut, *tea.Cursor) {
	lines := v.composeLines()
	cuts := v.lines.cuts
	if len(v.m.Grid()) == 0 {
		cuts = nil // the notice in place of the panes
	}
	if text, ok := v.overlayText(); ok {
		lines, cuts = overlay(lines, v.width, text), nil
	}
	if v.modal == nil && !v.scrollMode && !v.m.Quitting() {
		return lines, cuts, v.cursor()
	}
	return lines, cuts, nil
}

// appendBodyRow appends row y of the pane's body, exactly w cells wide: a
// screen sized for another client is cut or padded to fit.
func (s *paneView) appendBodyRow(dst []byte, y, w int) []byte {
	row := s.row(y)
	switch {
	case row == nil:
	case s.frame.Cols == w:
		return append(dst, row...)
	case s.frame.Cols > w:
		return append(append(dst, ansi.Truncate(string(row), w, "")...), "\x1b[m"...)
	default:
		dst = append(append(dst, row...), "\x1b[m"...)
		w -= s.frame.Cols
	}
	return append(dst, strings.Repeat(" ", w)...)
}

// cursor is the focused pane's cursor as the real terminal cursor.
func (v *view) cursor() *tea.Cursor {
	p := v.focused()
	if p == nil {
		return nil
	}
	s := v.pv(p)
	if s.scroll > 0 || p.HasAlert() || !s.frame.Cursor.Visible {
		return nil
	}
	idx, rects := v.pageRects()
	focus := v.focusIndex()
	for k, i := range idx {
		if i != focus {
			continue
		}
		r := rects[k]
		c := s.frame.Cursor
		if c.X >= r.w || c.Y >= r.h-1 {
			return nil
		}
		cur := &v.cursorScratch // the Terminal copies it
		*cur = *tea.NewCursor(r.x+c.X, r.y+1+c.Y)
		cur.Shape, cur.Blink = cursorShape(c.Shape)
		return cur
	}
	return nil
}

func cursorShape(s vt.CursorShape) (tea.CursorShape, bool) {
	switch s {
	case vt.CursorSteadyBlock:
		return tea.CursorBlock, false
	case vt.CursorBlinkingUnderline:
		return tea.CursorUnderline, true
	case vt.CursorSteadyUnderline:
		return tea.CursorUnderline, false
	case vt.CursorBlinkingBar:
		return tea.CursorBar, true
	case vt.CursorSteadyBar:
		return tea.CursorBar, false
	}
	return tea.CursorBlock, true
}

// overlay draws box centred over lines.
func overlay(lines []string, width int, box string) []string {
	boxLines := strings.Split(box, "\n")
	bw := 0
	for _, l := range boxLines {
		bw = max(bw, ansi.StringWidth(l))
	}
	top := max(0, (len(lines)-1-len(boxLines))/2)
	left := max(0, (width-bw)/2)
	for i, bl := range boxLines {
		y := top + i
		if y >= len(lines)-1 {
			break
		}
		line := lines[y]
		pad := strings.Repeat(" ", max(0, bw-ansi.StringWidth(bl)))
		lines[y] = ansi.Truncate(line, left, "") + "\x1b[m" + bl + pad + ansi.TruncateLeft(line, left+bw, "")
	}
	return lines
}

// bodyRows is how many rows pane i's body has in this view.
func (v *view) bodyRows(i int) int {
	idx, rects := v.pageRects()
	for k, j := range idx {
		if j == i {
			return rects[k].h - 1
		}
	}
	return 0
}
