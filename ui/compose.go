package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/ui/term"
)

// composeLines renders every screen line. Bodies come from each pane's
// cached rendered rows; no line ends with a newline (Bubble Tea drops the
// top line of a view one row too tall). The slice is the view's, reused
// by the next call.
func (v *view) composeLines() []string {
	v.composes++
	w, h := v.area()
	idx, rects := v.pageRects()
	var alerts map[int][]string // the bodies of panes showing a failure (start or teardown)
	for k, i := range idx {
		if p := v.m.Grid()[i]; p.HasAlert() || p.Phase() == mux.PhaseFailed {
			if alerts == nil {
				alerts = map[int][]string{}
			}
			alerts[i] = v.alertRows(p, rects[k].w, rects[k].h-1)
		}
	}
	// A line is composed again only when a part of it changed: a title,
	// or a pane row rendered since. An alert, or no panes, redoes all.
	c := &v.lines
	whole := c.key != v.layoutKey || len(c.text) != h || alerts != nil || c.alerts || len(v.m.Grid()) == 0 || !c.sameKeys(v, idx)
	titles := append(v.titlesScratch[:0], make([]string, len(rects))...)
	v.titlesScratch = titles
	pvs := v.pageViews(idx) // looked up once: lineChanged reads them for every line
	focus := v.focusIndex()
	for k, r := range rects {
		if !whole && v.m.echoOnly && !slices.Contains(v.m.framed, c.keys[k]) {
			titles[k] = c.titles[k] // drawing an echo: the others' titles wait for the frame
			continue
		}
		titles[k] = v.titleIn(idx[k], v.m.Grid()[idx[k]], r.w, r.h-1, focus)
	}
	if whole {
		c.key, c.text, c.titles, c.gens = v.layoutKey, make([]string, h), make([]string, len(idx)), make([]uint64, len(idx))
		c.keys, c.cuts = make([]int, len(idx)), make([][]term.Cut, h)
	}
	for y := range h {
		if !whole && !c.lineChanged(y, pvs, rects, titles) {
			continue
		}
		var cuts []term.Cut
		c.text[y], cuts = v.composeLine(y, w, idx, rects, titles, alerts)
		c.cuts[y] = sameOrCopy(c.cuts[y], cuts)
		v.cutsScratch = cuts[:0] // copied or equal to what the line had: free for the next
	}
	for k, i := range idx {
		c.titles[k], c.gens[k], c.keys[k] = titles[k], pvs[k].gen, v.m.Grid()[i].Key()
	}
	c.alerts = alerts != nil
	lines := append(v.linesScratch[:0], c.text...)
	if len(v.m.Grid()) == 0 && h > 0 {
		msg := ansi.Truncate("No panes open: "+v.m.opts.Prefix+" q quits.", w, "")
		lines[0] = emptyBodyStyle.Render(msg + strings.Repeat(" ", max(0, w-ansi.StringWidth(msg))))
	}
	v.linesScratch = append(lines, v.statusLine())
	return v.linesScratch
}

// composedLines are the lines a view composed last, and what of each
// pane they were composed from.
type composedLines struct {
	key    layoutKey
	text   []string
	cuts   [][]term.Cut // where each line's parts start: a place's gap and title or row
	titles []string     // by place on the page
	gens   []uint64     // each pane's render generation then
	alerts bool         // some pane showed a failure in place of its body
	keys   []int        // which pane was in each place
}

// sameKeys reports whether the page holds the panes it held.
func (c *composedLines) sameKeys(v *view, idx []int) bool {
	if len(c.keys) != len(idx) {
		return false
	}
	for k, i := range idx {
		if v.m.Grid()[i].Key() != c.keys[k] {
			return false
		}
	}
	return true
}

// lineChanged reports whether line y shows a part that changed since it
// was composed.
func (c *composedLines) lineChanged(y int, pvs []*paneView, rects []rect, titles []string) bool {
	for k, r := range rects {
		switch {
		case y < r.y || y >= r.y+r.h:
		case y == r.y:
			if titles[k] != c.titles[k] {
				return true
			}
		default:
			if pvs[k].rowRendered(y-r.y-1) > c.gens[k] {
				return true
			}
		}
	}
	return false
}

// pageViews are the view's states of the panes at idx, in their places,
// in a slice the view keeps for the next compose.
func (v *view) pageViews(idx []int) []*paneView {
	v.pvScratch = v.pvScratch[:0]
	for _, i := range idx {
		v.pvScratch = append(v.pvScratch, v.pv(v.m.Grid()[i]))
	}
	return v.pvScratch
}

// composeLine is line y: each pane's title or body row in its place,
// and where each place's part of it starts (in the view's scratch,
// which the caller hands back once it kept what it needs).
func (v *view) composeLine(y, w int, idx []int, rects []rect, titles []string, alerts map[int][]string) (string, []term.Cut) {
	v.out = v.out[:0]
	cuts := v.cutsScratch[:0]
	x := 0
	for k, r := range rects {
		if y < r.y || y >= r.y+r.h {
			continue
		}
		cuts = append(cuts, term.Cut{At: len(v.out), Col: x})
		if r.x > x {
			v.out = append(v.out, strings.Repeat(" ", r.x-x)...)
		}
		p := v.m.Grid()[idx[k]]
		switch rows, ok := alerts[idx[k]]; {
		case y == r.y:
			v.out = append(v.out, titles[k]...)
		case ok:
			if row := y - r.y - 1; row < len(rows) {
				v.out = append(v.out, rows[row]...)
			} else {
				v.out = append(v.out, strings.Repeat(" ", r.w)...)
			}
		default:
			v.out = v.pv(p).appendBodyRow(v.out, y-r.y-1, r.w)
		}
		x = r.x + r.w
	}
	if x < w {
		v.out = append(v.out, strings.Repeat(" ", w-x)...)
	}
	return string(v.out), cuts
}

// sameOrCopy is a line's new cuts: the ones it had when the parts start
// where they started (a row that changed in place, the common case),
// else a copy of cuts of its own, as the Terminal keeps a line's cuts.
func sameOrCopy(had, cuts []term.Cut) []term.Cut {
	if len(cuts) == 0 {
		return nil // no parts: the line is drawn whole
	}
	if slices.Equal(had, cuts) {
		return had
	}
	return slices.Clone(cuts)
}
