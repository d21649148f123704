package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/termsafe"
)

// How the search across panes draws: the query, a line of counts, the
// results (pane, line, excerpt with the match marked), a hint. Every bit
// of pane text (names, excerpts) is escaped before it is styled.

var (
	findMatchStyle = newPen(16, 214, false)
	findSelStyle   = newPen(16, 45, false)
	findDimStyle   = newPen(244, -1, false)
)

// findChrome is how many rows of the box are not results: the border,
// the query, the counts, two blanks and the hint.
const findChrome = 7

// findRows is how many results the box shows at once.
func (v *view) findRows() int { return max(1, v.height-1-findChrome-2) }

// findWidth is the width of the box's text.
func (v *view) findWidth() int { return max(20, min(v.width-4, 140)-4) }

// findText is the modal's box.
func (v *view) findText() string {
	f := v.find()
	if f == nil {
		return ""
	}
	w, rows := v.findWidth(), v.findRows()
	f.scrollTo(rows) // the terminal may have shrunk since the last key
	var b strings.Builder
	b.WriteString(ansi.Truncate("Search all panes: "+termsafe.String(f.query)+"▏", w, "…") + "\n")
	b.WriteString(findDimStyle.Render(ansi.Truncate(f.summary(), w, "…")) + "\n\n")
	for i := f.top; i < min(len(f.found), f.top+rows); i++ {
		b.WriteString(v.foundLine(f.found[i], w, i == f.sel) + "\n")
	}
	b.WriteString("\n" + findDimStyle.Render(ansi.Truncate("↑↓ pgup pgdn select · enter opens its scrollback (n/N go on) · esc closes", w, "…")))
	return box(b.String())
}

// summary is the line under the query.
func (f *findState) summary() string {
	switch {
	case f.err != nil:
		return termsafe.String(f.err.Error())
	case f.running != 0:
		return "searching…"
	case f.query == "" || f.done == 0:
		return "type to search every pane's screen and scrollback (" + "re: for a regular expression; a capital makes it case-sensitive)"
	case len(f.found) == 0:
		return "no match"
	}
	panes := map[int]bool{}
	for _, r := range f.found {
		panes[r.key] = true
	}
	n := fmt.Sprint(len(f.found))
	if f.more {
		n += "+"
	}
	stale := ""
	if f.done != f.gen {
		stale = " (for an older query)"
	}
	return fmt.Sprintf("%s matching line(s) in %d pane(s)%s", n, len(panes), stale)
}

// foundLine is one result, exactly w cells or fewer: "3 name  line 1234  excerpt".
func (v *view) foundLine(r found, w int, selected bool) string {
	i := v.m.IndexOf(r.key)
	name := "(gone)"
	if i >= 0 {
		name = v.m.Grid()[i].Spec().Name
	}
	label := fmt.Sprintf("%d %s", i+1, ansi.Truncate(termsafe.String(name), 16, "…"))
	where := fmt.Sprintf("line %d", r.Line+1)
	if r.Line >= r.Scrollback {
		where = fmt.Sprintf("row %d", r.Line-r.Scrollback+1)
	}
	marker := "  "
	if selected {
		marker = "› "
	}
	head := marker + fmt.Sprintf("%-*s %-10s ", 18, label, where)
	head += strings.Repeat(" ", max(0, 32-ansi.StringWidth(head)))
	room := max(0, w-ansi.StringWidth(head))
	before := termsafe.String(r.Excerpt[:r.Start])
	match := termsafe.String(r.Excerpt[r.Start:r.End])
	after := termsafe.String(r.Excerpt[r.End:])
	if bw, keep := ansi.StringWidth(before), room/3; bw > keep {
		// Keep the text just before the match, and the match in view.
		before = "…" + ansi.TruncateLeft(before, bw-max(0, keep-1), "")
	}
	match = ansi.Truncate(match, max(1, room-ansi.StringWidth(before)), "…")
	after = ansi.Truncate(after, max(0, room-ansi.StringWidth(before)-ansi.StringWidth(match)), "…")
	style := noPen
	if selected {
		style = findSelStyle
	}
	line := style.Render(head+before) + findMatchStyle.Render(match) + style.Render(after)
	return ansi.Truncate(line, w, "")
}
