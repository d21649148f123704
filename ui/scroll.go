package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/termsafe"
)

// searchState is a scrollback search: the query, whether it is still being
// typed, its matcher once entered (the one the search across panes uses,
// so both find the same), and the line of the current match (-1 for none).
type searchState struct {
	query    string
	typing   bool
	matcher  *vt.Matcher
	err      error // the query does not compile
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
		s.scroll, s.search, s.sel = 0, nil, nil
		v.takeFrame(p)
	}
}

// scrollBy moves the view of p n lines back (negative: forward).
func (v *view) scrollBy(p *mux.Pane, n int) {
	if p.Screen() == nil {
		return
	}
	s := v.pv(p)
	s.scroll = max(0, s.scroll+n)
	v.takeFrame(p)
}

func (v *view) wheel(p *mux.Pane, b tea.MouseButton) tea.Cmd {
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
var scrollKeys = map[string]func(v *view, p *mux.Pane, s *paneView){
	"q":      func(v *view, p *mux.Pane, s *paneView) { v.leaveScroll() },
	"esc":    func(v *view, p *mux.Pane, s *paneView) { v.leaveScroll() },
	"up":     func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, 1) },
	"k":      func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, 1) },
	"down":   func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, -1) },
	"j":      func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, -1) },
	"pgup":   func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, max(1, s.frame.Rows-1)) },
	"pgdown": func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, -max(1, s.frame.Rows-1)) },
	"home":   func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, s.frame.Scrollback) },
	"g":      func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, s.frame.Scrollback) },
	"end":    func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, -s.scroll) },
	"G":      func(v *view, p *mux.Pane, s *paneView) { v.scrollBy(p, -s.scroll) },
	"/":      func(v *view, p *mux.Pane, s *paneView) { s.search = &searchState{typing: true, match: -1} },
	"n":      func(v *view, p *mux.Pane, s *paneView) { v.findNext(p, -1) },
	"N":      func(v *view, p *mux.Pane, s *paneView) { v.findNext(p, 1) },
	"v":      func(v *view, p *mux.Pane, s *paneView) { v.startSelection(p, s, false) },
	"V":      func(v *view, p *mux.Pane, s *paneView) { v.startSelection(p, s, true) },
	"space":  func(v *view, p *mux.Pane, s *paneView) { v.startSelection(p, s, false) },
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
			q.matcher, q.err = vt.Compile(q.query)
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
	if s.sel != nil && p.Screen() != nil {
		v.selectKey(p, s, msg.String())
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
		case q.err != nil:
			return termsafe.String(fmt.Sprintf("SCROLL /%s: %v", q.query, q.err))
		case q.notFound:
			return termsafe.String(fmt.Sprintf("SCROLL /%s: not found", q.query))
		}
		return termsafe.String(fmt.Sprintf("SCROLL /%s", q.query))
	}
	switch {
	case s.sel != nil && s.sel.lines:
		return fmt.Sprintf("SCROLL %d/%d · SELECT LINES: y copies, esc drops", s.scroll, s.frame.Scrollback)
	case s.sel != nil:
		return fmt.Sprintf("SCROLL %d/%d · SELECT: y copies, esc drops", s.scroll, s.frame.Scrollback)
	}
	return fmt.Sprintf("SCROLL %d/%d", s.scroll, s.frame.Scrollback)
}

// findNext finds the next line holding the query, older (dir -1) or newer
// (dir 1) than the current match or the view's top line, and scrolls to it.
func (v *view) findNext(p *mux.Pane, dir int) {
	s := v.pv(p)
	q := s.search
	if q == nil || q.matcher == nil || p.Screen() == nil {
		return
	}
	from := q.match
	if from < 0 {
		from = p.Screen().ScrollbackLen() - s.scroll
		if dir > 0 {
			from--
		}
	}
	r, ok := p.Screen().SearchFrom(q.matcher, from+dir, dir)
	q.notFound = !ok
	if ok {
		v.showMatch(p, r)
	}
}

// showMatch scrolls p so that the match shows a third of the way down.
func (v *view) showMatch(p *mux.Pane, r vt.Match) {
	s := v.pv(p)
	s.search.match = r.Line
	_, rows := p.Screen().Size()
	top := max(0, r.Line-rows/3)
	s.scroll = min(r.Scrollback, max(0, r.Scrollback-top))
	v.takeFrame(p)
}

// highlightSearch reverses the cells of every visible match of the query.
func (s *paneView) highlightSearch() {
	q := s.search
	if q == nil || q.matcher == nil || q.typing {
		return
	}
	var spans []vt.Span
	for y := range s.frame.Rows {
		row := s.frame.Row(y)
		spans = q.matcher.RowMatches(row, spans[:0])
		for _, sp := range spans {
			for x := sp.Col; x < sp.Col+sp.Cols && x < len(row); x++ {
				row[x].Attrs ^= vt.AttrReverse
			}
		}
	}
}
