package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/termsafe"
)

// How a view shows a pane's failure: a failed start, or a failed close or
// kill until prefix x dismisses it (alert.go).

// dismissAt takes pane i's alert away (x on a failed close or kill); a
// pane that was being closed goes, as the close asked.
func (v *view) dismissAt(i int) tea.Cmd {
	return v.m.Dismiss(i)
}

// alertRows lays out the pane's alert in a body w cells wide and h rows
// tall: a heading, then the error wrapped, its control characters shown
// escaped (the text may come from a workspace or a remote host).
func (v *view) alertRows(p *mux.Pane, w, h int) []string {
	what, err, ok := p.Alert()
	if !ok {
		// A failed start: its whole reason, not a line cut at the width.
		head := fmt.Sprintf("start failed — %s r restarts, %s x closes", v.m.opts.Prefix, v.m.opts.Prefix)
		return failureRows(head, p.Err(), w, h)
	}
	head := fmt.Sprintf("%s failed — %s x dismisses", what, v.m.opts.Prefix)
	if p.Phase() == mux.PhaseKilled {
		head += ", " + v.m.opts.Prefix + " r restarts"
	}
	return failureRows(head, err, w, h)
}

// failureRows is a failure's body: the heading, then err wrapped, its
// control characters shown escaped, in w cells by h rows.
func failureRows(head string, err error, w, h int) []string {
	rows := []string{head, ""}
	for _, line := range strings.Split(fmt.Sprint(err), "\n") {
		wrapped := ansi.Wrap(termsafe.String(line), max(1, w-1), " /")
		rows = append(rows, strings.Split(wrapped, "\n")...)
	}
	if len(rows) > h {
		rows = rows[:h]
		if h > 0 {
			rows[h-1] += "…"
		}
	}
	for i, r := range rows {
		r = ansi.Truncate(r, w, "…")
		r += strings.Repeat(" ", max(0, w-ansi.StringWidth(r)))
		style := emptyBodyStyle
		if i == 0 {
			style = titleFailed
		}
		rows[i] = style.Render(r)
	}
	return rows
}
