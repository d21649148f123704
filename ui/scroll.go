package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/termsafe"
)

// searchState is a scrollback search: the query, whether it is still being
// typed, and the line of the current match (-1 for none).
type searchState struct {
	query    string
	typing   bool
	match    int
	notFound bool
}

func (m *Model) enterScroll() tea.Cmd {
	if m.focused() == nil {
		return nil
	}
	m.scrollMode = true
	return nil
}

func (m *Model) leaveScroll() {
	m.scrollMode = false
	if p := m.focused(); p != nil {
		p.scroll, p.search = 0, nil
		p.snapshot()
	}
}

// scrollBy moves the view n lines back (negative: forward).
func (p *pane) scrollBy(n int) {
	if p.screen == nil {
		return
	}
	p.scroll = max(0, p.scroll+n)
	p.snapshot()
}

func (m *Model) wheel(p *pane, b tea.MouseButton) tea.Cmd {
	switch b {
	case tea.MouseWheelUp:
		p.scrollBy(3)
	case tea.MouseWheelDown:
		p.scrollBy(-3)
	default:
		return nil
	}
	if p == m.focused() {
		m.scrollMode = p.scroll > 0
	}
	return nil
}

// scrollKeys are the keys of scrollback mode, outside of typing a query.
var scrollKeys = map[string]func(m *Model, p *pane){
	"q":      func(m *Model, p *pane) { m.leaveScroll() },
	"esc":    func(m *Model, p *pane) { m.leaveScroll() },
	"up":     func(m *Model, p *pane) { p.scrollBy(1) },
	"k":      func(m *Model, p *pane) { p.scrollBy(1) },
	"down":   func(m *Model, p *pane) { p.scrollBy(-1) },
	"j":      func(m *Model, p *pane) { p.scrollBy(-1) },
	"pgup":   func(m *Model, p *pane) { p.scrollBy(max(1, p.frame.Rows-1)) },
	"pgdown": func(m *Model, p *pane) { p.scrollBy(-max(1, p.frame.Rows-1)) },
	"home":   func(m *Model, p *pane) { p.scrollBy(p.frame.Scrollback) },
	"g":      func(m *Model, p *pane) { p.scrollBy(p.frame.Scrollback) },
	"end":    func(m *Model, p *pane) { p.scrollBy(-p.scroll) },
	"G":      func(m *Model, p *pane) { p.scrollBy(-p.scroll) },
	"/":      func(m *Model, p *pane) { p.search = &searchState{typing: true, match: -1} },
	"n":      func(m *Model, p *pane) { p.findNext(-1) },
	"N":      func(m *Model, p *pane) { p.findNext(1) },
}

func (m *Model) scrollKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.focused()
	if p == nil {
		m.scrollMode = false
		return nil
	}
	if s := p.search; s != nil && s.typing {
		switch key := msg.String(); key {
		case "enter":
			s.typing = false
			p.findNext(-1)
		case "esc":
			p.search = nil
			p.snapshot()
		case "backspace":
			if r := []rune(s.query); len(r) > 0 {
				s.query = string(r[:len(r)-1])
			}
		default:
			s.query += msg.Text
		}
		return nil
	}
	if f, ok := scrollKeys[msg.String()]; ok {
		f(m, p)
	}
	return nil
}

func (m *Model) scrollStatus() string {
	p := m.focused()
	if p == nil {
		return "SCROLL"
	}
	if s := p.search; s != nil {
		switch {
		case s.typing:
			return "/" + termsafe.String(s.query) + "▏" // a paste can hold anything
		case s.notFound:
			return termsafe.String(fmt.Sprintf("SCROLL /%s: not found", s.query))
		}
		return termsafe.String(fmt.Sprintf("SCROLL /%s", s.query))
	}
	return fmt.Sprintf("SCROLL %d/%d", p.scroll, p.frame.Scrollback)
}

// findNext finds the next line holding the query, older (dir -1) or newer
// (dir 1) than the current match or the view's top line, and scrolls to it.
func (p *pane) findNext(dir int) {
	s := p.search
	if s == nil || s.query == "" || p.screen == nil {
		return
	}
	sb := p.screen.ScrollbackLen()
	_, rows := p.screen.Size()
	from := s.match
	if from < 0 {
		from = sb - p.scroll
		if dir > 0 {
			from--
		}
	}
	line := p.searchLines(from+dir, dir, sb+rows)
	s.notFound = line < 0
	if line < 0 {
		return
	}
	s.match = line
	// Show the match a third of the way down the pane.
	top := max(0, line-rows/3)
	p.scroll = min(sb, max(0, sb-top))
	p.snapshot()
}

// searchLines scans lines start, start+dir, … of scrollback + screen for
// the query, in chunks so a long scrollback is never copied at once.
func (p *pane) searchLines(start, dir, total int) int {
	const chunk = 256
	var f vt.Frame
	var buf []byte
	for i := start; i >= 0 && i < total; {
		first := i
		if dir < 0 {
			first = max(0, i-chunk+1)
		}
		p.screen.SnapshotRange(&f, first, chunk)
		for ; i >= first && i < first+f.Rows; i += dir {
			buf = vt.RenderRowText(buf[:0], &f, i-first)
			if strings.Contains(string(buf), p.search.query) {
				return i
			}
		}
		if f.Rows == 0 {
			break
		}
	}
	return -1
}

// highlightSearch reverses the cells of every visible match of the query.
func (p *pane) highlightSearch() {
	s := p.search
	if s == nil || s.query == "" || s.typing {
		return
	}
	q := []rune(s.query)
	for y := range p.frame.Rows {
		row := p.frame.Row(y)
		for x := 0; x+len(q) <= len(row); x++ {
			if matchAt(row, x, q) {
				for k := range q {
					row[x+k].Attrs ^= vt.AttrReverse
				}
			}
		}
	}
}

func matchAt(row []vt.Cell, x int, q []rune) bool {
	for k, r := range q {
		c := row[x+k].Rune
		if c == 0 {
			c = ' '
		}
		if c != r {
			return false
		}
	}
	return true
}
