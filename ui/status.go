package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/termsafe"
)

// statusParts is everything the status line shows. Like a title it is
// read without formatting on every drawing and the line built and
// styled again only when a part changed.
type statusParts struct {
	pages, page int     // pages shown when more than one
	counts      [16]int // panes in each state, in status.States' order
	panes       bool
	zoom        bool
	broadcast   bool
	scroll      string // the scroll mode's status, "" outside it
	prefix      bool
	readOnly    bool
	rec         string
	notice      string
	prefixKey   string
	width       int
}

// statusLine shows pages, modes and the help hint.
func (v *view) statusLine() string {
	parts := statusParts{panes: len(v.m.Grid()) > 0, zoom: v.zoom, broadcast: v.broadcast,
		prefix: v.prefixPending, readOnly: v.readOnly, rec: v.viewRecMark(), notice: v.notice,
		prefixKey: v.m.opts.Prefix, width: v.width}
	if n := v.pageSize(); len(v.m.Grid()) > n && !v.zoom {
		parts.pages, parts.page = (len(v.m.Grid())+n-1)/n, v.page
	}
	for _, p := range v.m.Grid() {
		if i := slices.Index(status.States, p.State().State); i >= 0 {
			parts.counts[i]++
		}
	}
	if v.scrollMode {
		parts.scroll = v.scrollStatus()
	}
	if v.statusMade && parts == v.statusParts {
		return v.status
	}
	v.statusParts, v.statusMade, v.status = parts, true, parts.text()
	return v.status
}

// text is the status line styled, exactly width cells wide.
func (s *statusParts) text() string {
	var left strings.Builder
	for i := range s.pages {
		if i == s.page {
			fmt.Fprintf(&left, "[%d]", i+1)
		} else {
			fmt.Fprintf(&left, " %d ", i+1)
		}
	}
	if s.pages > 0 {
		left.WriteString(" ")
	}
	if s.panes { // one pane too: the line says how it is
		left.WriteString(s.stateCounts() + " ")
	}
	var flags []string
	for _, f := range []struct {
		on   bool
		text string
	}{{s.zoom, "ZOOM"}, {s.broadcast, "BROADCAST"}, {s.scroll != "", s.scroll}, {s.prefix, "PREFIX"},
		{s.readOnly, "READ-ONLY"}, {s.rec != "", s.rec}, {s.notice != "", termsafe.String(s.notice)}} {
		if f.on {
			flags = append(flags, f.text)
		}
	}
	hint := s.prefixKey + " ? help "
	l := " sandmux " + left.String()
	flagText := ""
	if len(flags) > 0 {
		flagText = statusAccent.Render(" " + strings.Join(flags, " ") + " ")
	}
	pad := max(0, s.width-ansi.StringWidth(l)-ansi.StringWidth(flagText)-ansi.StringWidth(hint))
	return ansi.Truncate(statusStyle.Render(l)+flagText+statusStyle.Render(strings.Repeat(" ", pad)+hint), s.width, "")
}

// stateCounts is the status line's "3 working · 1 waiting · 1 failed", in
// status.States' order: what needs the user first.
func (s *statusParts) stateCounts() string {
	var parts []string
	for i, st := range status.States {
		if s.counts[i] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", s.counts[i], st))
		}
	}
	return strings.Join(parts, " · ")
}
