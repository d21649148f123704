package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/termsafe"
)

// titleParts is everything a pane's title line shows, as read from the
// pane and the view. Every Update that draws composes every title on the
// page (each echo too), so the parts are read without formatting and
// compared with the last ones: the line is built and styled again only
// when one of them changed, about once a second for a busy pane.
type titleParts struct {
	num                int
	attention, picked  bool
	rec                string
	name, provider     string
	state              string
	out                int64 // the second of the last output, Unix; hasOut says whether there is one
	hasOut             bool
	scroll, scrollback int
	sized              bool
	cols, rows         int
	notice, alert      string
	hasAlert           bool
	styleID            rune
	width              int
}

// title is pane i's title line: name, provider, state, last output, and
// markers for attention, broadcast and scrollback, exactly w cells wide.
func (v *view) title(i int, p *mux.Pane, w int) string {
	return v.titleIn(i, p, w, v.bodyRows(i), v.focusIndex())
}

// titleIn is title for a pane whose body has rows rows where it is
// shown, in a view that focuses the pane at index focus.
func (v *view) titleIn(i int, p *mux.Pane, w, rows, focus int) string {
	v.titleLooks++
	s := v.pv(p)
	parts := titleParts{num: i + 1, attention: s.attention, picked: s.picked, rec: p.RecMark(v.m.Now()),
		name: p.Spec().Name, provider: p.Spec().Provider, state: p.TitleState(),
		notice: p.Notice(), width: w}
	if out := p.LastOutput(); !out.IsZero() {
		parts.out, parts.hasOut = out.Unix(), true
	}
	if s.scroll > 0 {
		parts.scroll, parts.scrollback = s.scroll, s.frame.Scrollback
	}
	if p.Screen() != nil && (s.frame.Cols != w || s.frame.Rows != rows) {
		parts.sized, parts.cols, parts.rows = true, s.frame.Cols, s.frame.Rows
	}
	if what, _, ok := p.Alert(); ok {
		parts.alert, parts.hasAlert = what, true
	}
	var style pen
	style, parts.styleID = v.titleStyleOf(i == focus, p, s)
	if s.titled && s.titleParts == parts {
		return s.title
	}
	s.title = style.Render(parts.text())
	s.titleParts, s.titled = parts, true
	return s.title
}

// titleStyleOf is the style of a pane's title, and a rune that names it.
func (v *view) titleStyleOf(focused bool, p *mux.Pane, s *paneView) (pen, rune) {
	switch {
	case focused:
		return titleFocused, 'f'
	case v.broadcast && s.picked:
		return titlePicked, 'p'
	case s.picked:
		return titlePickedIdle, 'q' // picked, broadcast not on yet
	}
	state := p.State().State
	if st, ok := stateStyles[state]; ok {
		return st, rune('a' + slices.Index(status.States, state))
	}
	return titleStyle, 't'
}

// text is the title line unstyled, escaped, cut or padded to its width.
func (t *titleParts) text() string {
	var b strings.Builder
	// The number comes first so that truncation keeps it: prefix 1…9
	// jumps to it, and ctl names a pane by it.
	fmt.Fprintf(&b, "%d ", t.num)
	if t.attention {
		b.WriteString("● ")
	}
	if t.picked {
		b.WriteString("⇶ ") // picked shows before broadcast starts, so picks can be checked
	}
	if t.rec != "" {
		b.WriteString(t.rec + " · ") // ticks once a second while it records
	}
	fmt.Fprintf(&b, "%s · %s · %s", t.name, t.provider, t.state)
	if t.hasOut {
		b.WriteString(" · out " + time.Unix(t.out, 0).Format("15:04:05"))
	}
	if t.scroll > 0 {
		fmt.Fprintf(&b, " · scrolled %d/%d", t.scroll, t.scrollback)
	}
	if t.sized {
		fmt.Fprintf(&b, " · sized %dx%d for another client", t.cols, t.rows)
	}
	if t.notice != "" {
		b.WriteString(" · " + t.notice)
	}
	if t.hasAlert {
		b.WriteString(" · " + t.alert + " failed")
	}
	// Name, state, error and notice may all come from outside (a config,
	// a provider, a remote host): the whole line is escaped before
	// styling.
	text := ansi.Truncate(" "+termsafe.String(b.String()), t.width, "…")
	return text + strings.Repeat(" ", max(0, t.width-ansi.StringWidth(text)))
}
