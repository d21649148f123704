package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/termsafe"
)

// Drawing the session list: a box over the panes as wide and tall as the
// client's terminal allows. Columns that do not fit drop from the right;
// rows that do not fit scroll with the selection. Every cell from a pane
// (names, providers, reasons) is escaped with termsafe.

// listColumn is one column of the session list.
type listColumn struct {
	head     string
	min, max int  // the width's bounds
	flex     bool // takes the width the others leave (the reason)
	right    bool // numbers align right
	cell     func(info *PaneInfo, now time.Time) string
}

// listColumns are the list's columns, in the order they drop from the
// right when the terminal is narrow.
var listColumns = []listColumn{
	{head: "#", min: 1, max: 4, right: true, cell: func(i *PaneInfo, _ time.Time) string { return strconv.Itoa(i.Number) }},
	{head: "name", min: 4, max: 24, cell: func(i *PaneInfo, _ time.Time) string { return termsafe.String(i.Name) }},
	{head: "provider", min: 5, max: 12, cell: func(i *PaneInfo, _ time.Time) string { return termsafe.String(i.Provider) }},
	{head: "state", min: 5, max: 12, cell: func(i *PaneInfo, _ time.Time) string { return termsafe.String(i.State) }},
	{head: "reason", min: 10, max: 60, flex: true, cell: func(i *PaneInfo, _ time.Time) string { return termsafe.String(i.Reason) }},
	{head: "since", min: 5, max: 8, cell: func(i *PaneInfo, now time.Time) string { return sinceText(now, i.Since) }},
	{head: "cpu", min: 4, max: 6, right: true, cell: cpuText},
	{head: "mem", min: 4, max: 7, right: true, cell: memText},
}

const (
	listGap = "  "
	// listChrome is the rows of the box that are not pane rows: its two
	// borders, the title, the header and the help line.
	listChrome = 5
	// listBorder is the box's border and padding, in columns.
	listBorder = 4
)

var listHeadStyle = newPen(-1, -1, true)

// stateColumn is the index of the state column, which is coloured.
const stateColumn = 3

// sessionsVisible is how many rows the list shows at once.
func (v *view) sessionsVisible() int {
	return max(1, v.height-1-listChrome)
}

// sessionsText is the list's box, for overlay.
func (v *view) sessionsText() string {
	l := v.sessions()
	rows := v.sessionRows()
	now := v.m.Now()
	cells := make([][]string, len(rows))
	for k := range rows {
		for _, c := range listColumns {
			cells[k] = append(cells[k], c.cell(&rows[k].info, now))
		}
	}
	avail := max(1, v.width-listBorder-2) // 2: the selection marker
	widths := fitColumns(cells, avail)

	sel, vis := l.selected(rows), v.sessionsVisible()
	l.top = max(0, min(l.top, sel, len(rows)-vis))
	if sel >= l.top+vis {
		l.top = sel - vis + 1
	}
	lines := []string{v.sessionsTitle(len(rows)), "  " + listHeadStyle.Render(joinCells(headCells(), widths))}
	for k := l.top; k < min(len(rows), l.top+vis); k++ {
		lines = append(lines, rowLine(cells[k], widths, rows[k].info.State, k == sel))
	}
	if len(rows) == 0 {
		lines = append(lines, "  no session matches")
	}
	lines = append(lines, v.sessionsHelp())
	width := avail + 2
	for k, ln := range lines {
		lines[k] = ansi.Truncate(ln, width, "…")
	}
	return box(strings.Join(lines, "\n"))
}

func (v *view) sessionsTitle(shown int) string {
	l := v.sessions()
	t := fmt.Sprintf("Sessions: %d", len(v.m.Grid()))
	if l.filter != "" || l.typing {
		t = fmt.Sprintf("Sessions: %d of %d match /%s", shown, len(v.m.Grid()), termsafe.String(l.filter))
		if l.typing {
			t += "▏"
		}
	}
	return t
}

func (v *view) sessionsHelp() string {
	switch {
	case v.sessions().typing:
		return "typing the filter: enter ends it, esc drops it, arrows move"
	case v.readOnly:
		return "enter go to it · type or / filter · esc back (read-only: no x k r)"
	}
	return "enter go to it · x close · k kill · r restart · type or / filter · esc back"
}

func headCells() []string {
	h := make([]string, len(listColumns))
	for k, c := range listColumns {
		h[k] = c.head
	}
	return h
}

// fitColumns sizes the columns to their contents within their bounds and
// drops columns from the right until they fit in avail; the flexible
// column takes what the others leave, up to what it holds.
func fitColumns(cells [][]string, avail int) []int {
	natural := make([]int, len(listColumns))
	for k, c := range listColumns {
		w := ansi.StringWidth(c.head)
		for _, row := range cells {
			w = max(w, ansi.StringWidth(row[k]))
		}
		natural[k] = max(c.min, min(w, c.max))
	}
	for n := len(listColumns); n > 1; n-- {
		used, flex := len(listGap)*(n-1), -1
		for k := range n {
			if listColumns[k].flex {
				flex = k
				continue
			}
			used += natural[k]
		}
		widths := append([]int(nil), natural[:n]...)
		if flex >= 0 {
			rest := avail - used
			if rest < listColumns[flex].min {
				continue
			}
			widths[flex] = min(rest, natural[flex])
		} else if used > avail {
			continue
		}
		return widths
	}
	return []int{min(natural[0], avail)}
}

// rowLine draws one pane's row; the selected one is marked and
// highlighted, the others have their state coloured.
func rowLine(cells []string, widths []int, state string, selected bool) string {
	if selected {
		return "▸ " + titleFocused.Render(joinCells(cells, widths))
	}
	parts := make([]string, len(widths))
	for k, w := range widths {
		parts[k] = fitCell(cells[k], w, listColumns[k].right)
		if st, ok := stateStyles[status.State(state)]; ok && k == stateColumn {
			parts[k] = st.Render(parts[k])
		}
	}
	return "  " + strings.Join(parts, listGap)
}

func joinCells(cells []string, widths []int) string {
	parts := make([]string, len(widths))
	for k, w := range widths {
		parts[k] = fitCell(cells[k], w, listColumns[k].right)
	}
	return strings.Join(parts, listGap)
}

// fitCell cuts or pads s to exactly w cells.
func fitCell(s string, w int, right bool) string {
	s = ansi.Truncate(s, w, "…")
	pad := strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
	if right {
		return pad + s
	}
	return s + pad
}

// sinceText says how long ago t was: "12s ago", "3m ago", "5h ago",
// "2d ago"; blank when unknown.
func sinceText(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := max(0, now.Sub(t))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

func cpuText(i *PaneInfo, _ time.Time) string {
	if !i.HasUsage {
		return ""
	}
	return fmt.Sprintf("%.0f%%", i.CPUPercent)
}

func memText(i *PaneInfo, _ time.Time) string {
	if !i.HasUsage {
		return ""
	}
	return humanBytes(i.RSSBytes)
}

// humanBytes writes n in binary units, about three digits: "812K",
// "3.4M", "1.2G".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	v, suffix := float64(n)/unit, "KMGTPE"
	k := 0
	for v >= unit && k < len(suffix)-1 {
		v /= unit
		k++
	}
	if v < 10 {
		return fmt.Sprintf("%.1f%c", v, suffix[k])
	}
	return fmt.Sprintf("%.0f%c", v, suffix[k])
}

// stateStyles colour an unfocused pane's title by its state, so that a
// grid of twenty says at a glance which needs the user, which works and
// which ended well or not.
var stateStyles = map[status.State]pen{
	status.Working:      titleStyle,
	status.Idle:         newPen(250, 238, false),
	status.Waiting:      newPen(16, 220, true),
	status.Done:         newPen(231, 22, false),
	status.Failed:       titleFailed,
	status.Disconnected: newPen(16, 178, false),
	status.Closing:      newPen(231, 90, false),
}
