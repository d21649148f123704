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

func (v *view) enterScroll() tea.Cmd {
	if v.focused() == nil {
		return nil
	}
	v.scrollMode = true
	return nil
}

func (v *view) leaveScroll() {
	v.scrollMode = false
	if p := v.focused(); p != nil {
		s := v.pv(p)
		s.scroll, s.search = 0, nil
		v.takeFrame(p)
	}
}

// scrollBy moves the view of p n lines back (negative: forward).
func (v *view) scrollBy(p *pane, n int) {
	if p.screen == nil {
		return
	}
	s := v.pv(p)
	s.scroll = max(0, s.scroll+n)
	v.takeFrame(p)
}

func (v *view) wheel(p *pane, b tea.MouseButton) tea.Cmd {
	switch b {
	case tea.MouseWheelUp:
		v.scrollBy(p, 3)
	case tea.MouseWheelDown:
		v.scrollBy(p, -3)
	default:
		return nil
	}
	if p == v.focused() {
		v.scrollMode = v.pv(p).scroll > 0
	}
	return nil
}

// scrollKeys are the keys of scrollback mode, outside of typing a query.
var scrollKeys = map[string]func(v *view, p *pane, s *paneView){
	"q":      func(v *view, p *pane, s *paneView) { v.leaveScroll() },
	"esc":    func(v *view, p *pane, s *paneView) { v.leaveScroll() },
	"up":     func(v *view, p *pane, s *paneView) { v.scrollBy(p, 1) },
	"k":      func(v *view, p *pane, s *paneView) { v.scrollBy(p, 1) },
	"down":   func(v *view, p *pane, s *paneView) { v.scrollBy(p, -1) },
	"j":      func(v *view, p *pane, s *paneView) { v.scrollBy(p, -1) },
	"pgup":   func(v *view, p *pane, s *paneView) { v.scrollBy(p, max(1, s.frame.Rows-1)) },
	"pgdown": func(v *view, p *pane, s *paneView) { v.scrollBy(p, -max(1, s.frame.Rows-1)) },
	"home":   func(v *view, p *pane, s *paneView) { v.scrollBy(p, s.frame.Scrollback) },
	"g":      func(v *view, p *pane, s *paneView) { v.scrollBy(p, s.frame.Scrollback) },
	"end":    func(v *view, p *pane, s *paneView) { v.scrollBy(p, -s.scroll) },
	"G":      func(v *view, p *pane, s *paneView) { v.scrollBy(p, -s.scroll) },
	"/":      func(v *view, p *pane, s *paneView) { s.search = &searchState{typing: true, match: -1} },
	"n":      func(v *view, p *pane, s *paneView) { v.findNext(p, -1) },
	"N":      func(v *view, p *pane, s *paneView) { v.findNext(p, 1) },
}

func (v *view) scrollKey(msg tea.KeyPressMsg) tea.Cmd {
	p := v.focused()
	if p == nil {
		v.scrollMode = false
		return nil
	}
	s := v.pv(p)
	if q := s.search; q != nil && q.typing {
		switch key := msg.String(); key {
		case "enter":
			q.typing = false
			v.findNext(p, -1)
		case "esc":
			s.search = nil
			v.takeFrame(p)
		case "backspace":
			if r := []rune(q.query); len(r) > 0 {
				q.query = string(r[:len(r)-1])
			}
		default:
			q.query += msg.Text
		}
		return nil
	}
	if f, ok := scrollKeys[msg.String()]; ok {
		f(v, p, s)
	}
	return nil
}

func (v *view) scrollStatus() string {
	p := v.focused()
	if p == nil {
		return "SCROLL"
	}
	s := v.pv(p)
	if q := s.search; q != nil {
		switch {
		case q.typing:
			return "/" + termsafe.String(q.query) + "▏" // a paste can hold anything
		case q.notFound:
			return termsafe.String(fmt.Sprintf("SCROLL /%s: not found", q.query))
		}
		return termsafe.String(fmt.Sprintf("SCROLL /%s", q.query))
	}
	return fmt.Sprintf("SCROLL %d/%d", s.scroll, s.frame.Scrollback)
}

// findNext finds the next line holding the query, older (dir -1) or newer
// (dir 1) than the current match or the view's top line, and scrolls to it.
func (v *view) findNext(p *pane, dir int) {
	s := v.pv(p)
	q := s.search
	if q == nil || q.query == "" || p.screen == nil {
		return
	}
	sb := p.screen.ScrollbackLen()
	_, rows := p.screen.Size()
	from := q.match
	if from < 0 {
		from = sb - s.scroll
		if dir > 0 {
			from--
		}
	}
	line := searchLines(p.screen, q.query, from+dir, dir, sb+rows)
	q.notFound = line < 0
	if line < 0 {
		return
	}
	q.match = line
	// Show the match a third of the way down the pane.
	top := max(0, line-rows/3)
	s.scroll = min(sb, max(0, sb-top))
	v.takeFrame(p)
}

// searchLines scans lines start, start+dir, … of scrollback + screen for
// the query, in chunks so a long scrollback is never copied at once.
func searchLines(screen *vt.Screen, query string, start, dir, total int) int {
	const chunk = 256
	var f vt.Frame
	var buf []byte
	for i := start; i >= 0 && i < total; {
		first := i
		if dir < 0 {
			first = max(0, i-chunk+1)
		}
		screen.SnapshotRange(&f, first, chunk)
		for ; i >= first && i < first+f.Rows; i += dir {
			buf = vt.RenderRowText(buf[:0], &f, i-first)
			if strings.Contains(string(buf), query) {
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
func (s *paneView) highlightSearch() {
	q := s.search
	if q == nil || q.query == "" || q.typing {
		return
	}
	runes := []rune(q.query)
	for y := range s.frame.Rows {
		row := s.frame.Row(y)
		for x := 0; x+len(runes) <= len(row); x++ {
			if matchAt(row, x, runes) {
				for k := range runes {
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
