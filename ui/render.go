package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/termsafe"
)

// Chrome styles. Pane bodies are rendered by vt's run renderer; lipgloss
// draws only titles, the status line and overlays.
var (
	titleStyle     = lipgloss.NewStyle().Foreground(lipgloss.Color("252")).Background(lipgloss.Color("237"))
	titleFocused   = lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("45")).Bold(true)
	titlePicked    = lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("214")).Bold(true)
	titleFailed    = lipgloss.NewStyle().Foreground(lipgloss.Color("231")).Background(lipgloss.Color("124"))
	statusStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("250")).Background(lipgloss.Color("235"))
	statusAccent   = lipgloss.NewStyle().Foreground(lipgloss.Color("16")).Background(lipgloss.Color("214")).Bold(true)
	overlayStyle   = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("45")).Padding(0, 1)
	emptyBodyStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("244"))
)

// area is the part of the screen the panes share: all but the status line.
func (m *Model) area() (w, h int) { return m.width, max(0, m.height-1) }

// pageSize is how many panes one page holds.
func (m *Model) pageSize() int {
	w, h := m.area()
	return perPage(w, h)
}

// pageRects returns the panes shown now (indices) and their rects.
func (m *Model) pageRects() ([]int, []rect) {
	w, h := m.area()
	if len(m.panes) == 0 {
		return nil, nil
	}
	if m.zoom {
		return []int{m.focus}, []rect{{0, 0, w, h}}
	}
	n := m.pageSize()
	first := min(m.page*n, (len(m.panes)-1)/n*n)
	last := min(len(m.panes), first+n)
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

// markShown tells each pane's sink whether the pane is on screen.
func (m *Model) markShown() {
	idx, _ := m.pageRects()
	k := 0
	for i, p := range m.panes {
		on := k < len(idx) && idx[k] == i
		if on {
			k++
		}
		if p.shown.Load() != on {
			p.shown.Store(on)
		}
	}
}

func (m *Model) visible(i int) bool {
	idx, _ := m.pageRects()
	for _, j := range idx {
		if j == i {
			return true
		}
	}
	return false
}

// bodySize is the size of pane i's body where it is (or would be) shown.
func (m *Model) bodySize(i int) providers.Size {
	idx, rects := m.pageRects()
	for k, j := range idx {
		if j == i {
			r := rects[k]
			return providers.Size{Cols: uint16(max(1, r.w)), Rows: uint16(max(1, r.h-1))}
		}
	}
	if len(rects) > 0 {
		// Off-page panes get the size of a page's first pane.
		return providers.Size{Cols: uint16(max(1, rects[0].w)), Rows: uint16(max(1, rects[0].h-1))}
	}
	return providers.Size{Cols: 80, Rows: 23}
}

// View composes the frame: pane titles and bodies, the status line, and
// an overlay when one is open.
//
// When the program draws through a Terminal (UseTerminal), Update hands
// every frame to it and View returns nothing for Bubble Tea to draw.
func (m *Model) View() tea.View {
	if m.term != nil {
		return tea.View{}
	}
	v := tea.View{AltScreen: true, MouseMode: tea.MouseModeCellMotion, ReportFocus: true, WindowTitle: "sandmux"}
	lines, cursor := m.frame()
	v.SetContent(strings.Join(lines, "\n"))
	v.Cursor = cursor
	return v
}

// frame composes the screen's lines, the overlay if one is open, and where
// the real cursor goes (nil: hidden).
func (m *Model) frame() ([]string, *tea.Cursor) {
	lines := m.composeLines()
	switch m.modal {
	case modalHelp:
		lines = overlay(lines, m.width, m.helpText())
	case modalConfirmQuit:
		lines = overlay(lines, m.width, m.confirmText())
	case modalClosing, modalQuitting:
		lines = overlay(lines, m.width, m.teardownText())
	}
	if m.modal == modalNone && !m.scrollMode {
		return lines, m.cursor()
	}
	return lines, nil
}

// composeLines renders every screen line. Bodies come from each pane's
// cached rendered rows; no line ends with a newline (Bubble Tea drops the
// top line of a view one row too tall).
func (m *Model) composeLines() []string {
	w, h := m.area()
	idx, rects := m.pageRects()
	lines := make([]string, 0, h+1)
	var alerts map[int][]string // the bodies of panes showing a failure (start or teardown)
	for k, i := range idx {
		if p := m.panes[i]; p.alert != nil || p.phase == phaseFailed {
			if alerts == nil {
				alerts = map[int][]string{}
			}
			alerts[i] = m.alertRows(p, rects[k].w, rects[k].h-1)
		}
	}
	for y := range h {
		m.out = m.out[:0]
		x := 0
		for k, r := range rects {
			if y < r.y || y >= r.y+r.h {
				continue
			}
			if r.x > x {
				m.out = append(m.out, strings.Repeat(" ", r.x-x)...)
			}
			p := m.panes[idx[k]]
			switch rows, ok := alerts[idx[k]]; {
			case y == r.y:
				m.out = append(m.out, m.title(idx[k], p, r.w)...)
			case ok:
				if row := y - r.y - 1; row < len(rows) {
					m.out = append(m.out, rows[row]...)
				} else {
					m.out = append(m.out, strings.Repeat(" ", r.w)...)
				}
			default:
				m.out = appendBodyRow(m.out, p, y-r.y-1, r.w)
			}
			x = r.x + r.w
		}
		if x < w {
			m.out = append(m.out, strings.Repeat(" ", w-x)...)
		}
		lines = append(lines, string(m.out))
	}
	if len(m.panes) == 0 && h > 0 {
		msg := ansi.Truncate("No panes open: "+m.cfg.Prefix+" q quits.", w, "")
		lines[0] = emptyBodyStyle.Render(msg + strings.Repeat(" ", max(0, w-ansi.StringWidth(msg))))
	}
	return append(lines, m.statusLine())
}

// appendBodyRow appends row y of the pane's body, exactly w cells wide.
func appendBodyRow(dst []byte, p *pane, y, w int) []byte {
	if p.frame.Cols == w {
		if row := p.row(y); row != nil {
			return append(dst, row...)
		}
	}
	return append(dst, strings.Repeat(" ", w)...)
}

// title is pane i's title line: name, provider, state, last output, and
// markers for attention, broadcast and scrollback, exactly w cells wide.
func (m *Model) title(i int, p *pane, w int) string {
	var b strings.Builder
	// The number comes first so that truncation keeps it: prefix 1…9
	// jumps to it, and ctl names a pane by it.
	fmt.Fprintf(&b, "%d ", i+1)
	if p.attention {
		b.WriteString("● ")
	}
	if m.broadcast && p.picked {
		b.WriteString("⇶ ")
	}
	fmt.Fprintf(&b, "%s · %s · %s", p.spec.Name, p.spec.Provider, p.status())
	if !p.lastOutput.IsZero() {
		b.WriteString(" · out " + p.lastOutput.Format("15:04:05"))
	}
	if p.scroll > 0 {
		fmt.Fprintf(&b, " · scrolled %d/%d", p.scroll, p.frame.Scrollback)
	}
	if p.notice != "" {
		b.WriteString(" · " + p.notice)
	}
	if p.alert != nil {
		b.WriteString(" · " + p.alert.what + " failed")
	}
	// Name, state, error and notice may all come from outside (a config,
	// a provider, a remote host): the whole line is escaped before styling.
	text := ansi.Truncate(" "+termsafe.String(b.String()), w, "…")
	text += strings.Repeat(" ", max(0, w-ansi.StringWidth(text)))
	style := titleStyle
	switch {
	case i == m.focus:
		style = titleFocused
	case m.broadcast && p.picked:
		style = titlePicked
	case p.phase == phaseFailed || p.alert != nil:
		style = titleFailed
	}
	return style.Render(text)
}

// statusLine shows pages, modes and the help hint.
func (m *Model) statusLine() string {
	var left strings.Builder
	if n := m.pageSize(); len(m.panes) > n && !m.zoom {
		pages := (len(m.panes) + n - 1) / n
		for i := range pages {
			if i == m.page {
				fmt.Fprintf(&left, "[%d]", i+1)
			} else {
				fmt.Fprintf(&left, " %d ", i+1)
			}
		}
		left.WriteString(" ")
	}
	var flags []string
	if m.zoom {
		flags = append(flags, "ZOOM")
	}
	if m.broadcast {
		flags = append(flags, "BROADCAST")
	}
	if m.scrollMode {
		flags = append(flags, m.scrollStatus())
	}
	if m.prefixPending {
		flags = append(flags, "PREFIX")
	}
	hint := fmt.Sprintf("%s ? help ", m.cfg.Prefix)
	l := " sandmux " + left.String()
	flagText := ""
	if len(flags) > 0 {
		flagText = statusAccent.Render(" " + strings.Join(flags, " ") + " ")
	}
	pad := max(0, m.width-ansi.StringWidth(l)-ansi.StringWidth(flagText)-ansi.StringWidth(hint))
	return ansi.Truncate(statusStyle.Render(l)+flagText+statusStyle.Render(strings.Repeat(" ", pad)+hint), m.width, "")
}

// cursor is the focused pane's cursor as the real terminal cursor.
func (m *Model) cursor() *tea.Cursor {
	p := m.focused()
	if p == nil || p.scroll > 0 || p.alert != nil || !p.frame.Cursor.Visible {
		return nil
	}
	idx, rects := m.pageRects()
	for k, i := range idx {
		if i != m.focus {
			continue
		}
		r := rects[k]
		c := p.frame.Cursor
		if c.X >= r.w || c.Y >= r.h-1 {
			return nil
		}
		cur := tea.NewCursor(r.x+c.X, r.y+1+c.Y)
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
