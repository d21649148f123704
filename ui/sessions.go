package ui

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// The session list (prefix w): every pane across pages, the ones that need
// the user first, filtered by what is typed, with keys that go to a pane
// or act on it. Each client has its own list; it stays live, drawn from
// the panes on every redraw.
//
// Keys: up, down, pgup, pgdown, home and end move the selection; enter
// goes to the selected pane; x, k and r close, kill and restart it, as the
// prefix keys do for the focused pane. Any other printable key starts the
// filter with itself, and / starts an empty one (for a filter beginning
// with x, k or r); while the filter is being typed every printable key
// goes to it, enter ends the typing (the filter stays, and x, k, r act
// again) and esc drops it. Without typing, esc drops the filter, then
// closes the list.

// sessionList is one client's session list.
type sessionList struct {
	filter string
	typing bool // printable keys go to the filter
	// sel is the selected pane's key: the selection follows the pane as
	// the rows reorder; -1 selects the first row.
	sel int
	top int // the first row shown, for lists taller than the terminal
}

// maxFilter bounds the filter, in bytes.
const maxFilter = 64

// listRank orders the list: waiting first, then failed, then the rest.
var listRank = map[string]int{"waiting": 0, "failed": 1}

func (v *view) openSessions() tea.Cmd {
	v.modal = &sessionList{sel: -1}
	v.selectFirst()
	return v.m.SampleUsageNow() // the list shows every pane's CPU and memory
}

// selectFirst puts the list's selection where the user wants it first.
func (v *view) selectFirst() {
	// The selection starts on the first row when it needs the user (it
	// waits or failed: enter goes straight to it), else on the focused
	// pane.
	l := v.sessions()
	l.sel = -1
	for _, p := range v.m.Grid() {
		if _, ok := listRank[string(p.State().State)]; ok {
			return
		}
	}
	if p := v.focused(); p != nil {
		l.sel = p.Key()
	}
}

// sessionRow is one row of the list: the pane's key and what it shows.
type sessionRow struct {
	key  int
	info PaneInfo
}

// sessionRows is every pane the list's filter matches (every pane with
// the list closed), waiting and failed first, the others in grid order.
func (v *view) sessionRows() []sessionRow {
	filter := ""
	if l := v.sessions(); l != nil {
		filter = l.filter
	}
	rows := make([]sessionRow, 0, len(v.m.Grid()))
	for i, p := range v.m.Grid() {
		info := v.m.InfoAt(i)
		if matchesFilter(info, filter) {
			rows = append(rows, sessionRow{key: p.Key(), info: *info})
		}
	}
	sortSessionRows(rows)
	return rows
}

// sortSessionRows puts waiting rows first, then failed ones, each group
// in the order it came (grid order).
func sortSessionRows(rows []sessionRow) {
	slices.SortStableFunc(rows, func(a, b sessionRow) int {
		return cmp.Compare(rankOf(a.info.State), rankOf(b.info.State))
	})
}

func rankOf(state string) int {
	if r, ok := listRank[state]; ok {
		return r
	}
	return len(listRank)
}

// matchesFilter: a case-insensitive substring of the name, provider,
// state or reason.
func matchesFilter(info *PaneInfo, filter string) bool {
	if filter == "" {
		return true
	}
	f := strings.ToLower(filter)
	for _, s := range []string{info.Name, info.Provider, info.State, info.Reason} {
		if strings.Contains(strings.ToLower(s), f) {
			return true
		}
	}
	return false
}

// selected is the index of the selected row, the first when the
// selected pane is not listed (filtered out, or gone), -1 with no rows.
func (l *sessionList) selected(rows []sessionRow) int {
	if len(rows) == 0 {
		return -1
	}
	for k, r := range rows {
		if r.key == l.sel {
			return k
		}
	}
	return 0
}

// sessionsKey handles a key while the list is open.
func (v *view) sessionsKey(msg tea.KeyPressMsg) tea.Cmd {
	l := v.sessions()
	rows := v.sessionRows()
	key := msg.String()
	if l.move(rows, key, v.sessionsVisible()) {
		return nil
	}
	switch key {
	case "enter":
		if l.typing {
			l.typing = false
			return nil
		}
		return v.goToSelected(rows)
	case "esc", "ctrl+c":
		switch {
		case l.typing || l.filter != "":
			l.typing, l.filter = false, ""
		default:
			v.modal = nil
		}
		return nil
	case "backspace":
		if r := []rune(l.filter); len(r) > 0 {
			l.filter = string(r[:len(r)-1])
		}
		return nil
	}
	if !l.typing {
		switch key {
		case "x", "k", "r":
			return v.actOnSelected(rows, key)
		case "/":
			l.typing = true
			return nil
		}
	}
	if printable(msg.Text) && len(l.filter)+len(msg.Text) <= maxFilter {
		l.typing = true
		l.filter += msg.Text
	}
	return nil
}

// move handles the keys that move the selection; page is how many rows
// show at once. It reports whether key was one of them.
func (l *sessionList) move(rows []sessionRow, key string, page int) bool {
	k := l.selected(rows)
	switch key {
	case "up":
		k--
	case "down":
		k++
	case "pgup":
		k -= page
	case "pgdown":
		k += page
	case "home":
		k = 0
	case "end":
		k = len(rows) - 1
	default:
		return false
	}
	if len(rows) > 0 {
		l.sel = rows[max(0, min(k, len(rows)-1))].key
	}
	return true
}

func printable(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// goToSelected closes the list and focuses the selected pane: its page
// follows.
func (v *view) goToSelected(rows []sessionRow) tea.Cmd {
	k := v.sessions().selected(rows)
	if k < 0 {
		return nil
	}
	v.modal = nil
	return v.setFocus(v.m.IndexOf(rows[k].key))
}

// actOnSelected closes (x), kills (k) or restarts (r) the selected pane,
// as the prefix keys do the focused one. The list stays open and shows
// the teardown in the pane's row.
func (v *view) actOnSelected(rows []sessionRow, key string) tea.Cmd {
	k := v.sessions().selected(rows)
	if k < 0 {
		return nil
	}
	if v.readOnly {
		v.notice = "read-only"
		return nil
	}
	i := v.m.IndexOf(rows[k].key)
	switch key {
	case "x":
		return v.closeAt(i, false)
	case "k":
		return v.killAt(i)
	default:
		return v.restartAt(i)
	}
}
