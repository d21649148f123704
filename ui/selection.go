package ui

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session/vt"
)

// Copy mode's selection, in scrollback mode (prefix [): v starts it at a
// cursor, the cursor keys, w/b (by word), 0/$ and pgup/pgdn extend it,
// V takes whole lines, y or enter copies it to the client's terminal
// through OSC 52, as tmux's copy-mode does; a drag of the mouse selects
// too, and its release copies. Points count lines of scrollback +
// screen as vt.SnapshotRange does, so a selection stays on its text as
// the view scrolls.

// point is a cell of scrollback + screen.
type point struct{ line, col int }

func (a point) before(b point) bool { return a.line < b.line || a.line == b.line && a.col < b.col }

// selection is a pane's selection in one client: from anchor to cursor,
// both included.
type selection struct {
	anchor, cursor point
	lines          bool // whole lines (V)
	mouse          bool // made by a drag: its release copies and ends it
}

// maxCopyBytes bounds the text one copy sends (its base64 stays under
// what a pane's own OSC 52 may carry); copyChunk is how many lines are
// read from the screen at a time.
const (
	maxCopyBytes = 512 << 10
	copyChunk    = 256
)

// ordered returns the selection's first and last points.
func (sel *selection) ordered() (point, point) {
	a, b := sel.anchor, sel.cursor
	if b.before(a) {
		a, b = b, a
	}
	return a, b
}

// span is the columns [from, to] of line selected, ok false for none.
func (sel *selection) span(line, cols int) (from, to int, ok bool) {
	a, b := sel.ordered()
	if line < a.line || line > b.line {
		return 0, 0, false
	}
	from, to = 0, cols-1
	if !sel.lines {
		if line == a.line {
			from = a.col
		}
		if line == b.line {
			to = min(b.col, cols-1)
		}
	}
	return from, to, from <= to
}

// highlightSelection reverses the selected cells of the frame.
func (s *paneView) highlightSelection() {
	sel := s.sel
	if sel == nil {
		return
	}
	for y := range s.frame.Rows {
		from, to, ok := sel.span(s.frame.First+y, s.frame.Cols)
		if !ok {
			continue
		}
		row := s.frame.Row(y)
		for x := from; x <= to && x < len(row); x++ {
			row[x].Attrs ^= vt.AttrReverse
		}
	}
}

// startSelection starts a selection at the pane's cursor on the live
// screen, else at the view's last row; v again starts it anew at the
// selection's cursor.
func (v *view) startSelection(p *mux.Pane, s *paneView, lines bool) {
	if p.Screen() == nil {
		return // a pane still starting has nothing to select
	}
	if s.sel != nil {
		s.sel.anchor, s.sel.lines = s.sel.cursor, lines
		v.takeFrame(p)
		return
	}
	at := point{s.frame.First + max(0, s.frame.Rows-1), 0}
	if s.scroll == 0 {
		at = point{s.frame.First + min(s.frame.Cursor.Y, max(0, s.frame.Rows-1)), min(s.frame.Cursor.X, max(0, s.frame.Cols-1))}
	}
	s.sel = &selection{anchor: at, cursor: at, lines: lines}
	v.takeFrame(p)
}

// selectKeys move the selection's cursor: each returns where it goes.
var selectKeys = map[string]func(v *view, p *mux.Pane, s *paneView, c point) point{
	"left": func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line, max(0, c.col-1)} },
	"h":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line, max(0, c.col-1)} },
	"right": func(v *view, p *mux.Pane, s *paneView, c point) point {
		return point{c.line, min(s.frame.Cols-1, c.col+1)}
	},
	"l": func(v *view, p *mux.Pane, s *paneView, c point) point {
		return point{c.line, min(s.frame.Cols-1, c.col+1)}
	},
	"up":   func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line - 1, c.col} },
	"k":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line - 1, c.col} },
	"down": func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line + 1, c.col} },
	"j":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line + 1, c.col} },
	"pgup": func(v *view, p *mux.Pane, s *paneView, c point) point {
		return point{c.line - max(1, s.frame.Rows-1), c.col}
	},
	"pgdown": func(v *view, p *mux.Pane, s *paneView, c point) point {
		return point{c.line + max(1, s.frame.Rows-1), c.col}
	},
	"0":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line, 0} },
	"home": func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line, 0} },
	"$":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line, lineEnd(p, c.line)} },
	"end":  func(v *view, p *mux.Pane, s *paneView, c point) point { return point{c.line, lineEnd(p, c.line)} },
	"g":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{0, 0} },
	"G":    func(v *view, p *mux.Pane, s *paneView, c point) point { return point{1 << 30, c.col} },
	"w":    func(v *view, p *mux.Pane, s *paneView, c point) point { return wordForward(p, c) },
	"b":    func(v *view, p *mux.Pane, s *paneView, c point) point { return wordBack(p, c) },
}

// selectKey handles a key while a selection is made.
func (v *view) selectKey(p *mux.Pane, s *paneView, key string) {
	switch key {
	case "y", "enter":
		v.copySelection(p, s)
		v.leaveScroll()
	case "esc":
		s.sel = nil
		v.takeFrame(p)
	case "q":
		v.leaveScroll()
	case "v":
		v.startSelection(p, s, false)
	case "V":
		v.startSelection(p, s, !s.sel.lines)
	default:
		if move, ok := selectKeys[key]; ok {
			v.moveSelection(p, s, move(v, p, s, s.sel.cursor))
		}
	}
}

// moveSelection puts the cursor at c, inside the pane's lines, and
// scrolls the view so that it shows.
func (v *view) moveSelection(p *mux.Pane, s *paneView, c point) {
	_, rows := p.Screen().Size()
	total := p.Screen().ScrollbackLen() + rows
	c.line = min(max(c.line, 0), total-1)
	s.sel.cursor = c
	sb := p.Screen().ScrollbackLen()
	top := sb - s.scroll
	switch {
	case c.line < top:
		top = c.line
	case c.line >= top+rows:
		top = c.line - rows + 1
	}
	s.scroll = min(max(sb-top, 0), sb)
	v.takeFrame(p)
}

// readLines reads n lines from first into f.
func readLines(p *mux.Pane, f *vt.Frame, first, n int) { p.Screen().SnapshotRange(f, first, n) }

// lineCells returns line's cells, or nil past the end.
func lineCells(p *mux.Pane, line int) []vt.Cell {
	var f vt.Frame
	readLines(p, &f, line, 1)
	if f.Rows == 0 {
		return nil
	}
	return f.Row(0)
}

// lineEnd is the last column of line that holds text.
func lineEnd(p *mux.Pane, line int) int {
	row := lineCells(p, line)
	for x := len(row) - 1; x >= 0; x-- {
		if !blank(row[x]) {
			return x
		}
	}
	return 0
}

func blank(c vt.Cell) bool { return c.Flags&vt.FlagPlaceholder == 0 && (c.Rune == 0 || c.Rune == ' ') }

// wordCell says whether a cell is part of a word: w and b move over
// runs of them, as vi's W and B do over blanks.
func wordCell(c vt.Cell) bool {
	return c.Flags&vt.FlagPlaceholder != 0 || !blank(c) && !unicode.IsSpace(c.Rune)
}

// wordForward is the start of the next word, on this line or a later one.
func wordForward(p *mux.Pane, c point) point {
	_, rows := p.Screen().Size()
	last := p.Screen().ScrollbackLen() + rows - 1
	row := lineCells(p, c.line)
	x := c.col
	for x < len(row) && wordCell(row[x]) {
		x++
	}
	for {
		for x < len(row) && !wordCell(row[x]) {
			x++
		}
		if x < len(row) || c.line >= last {
			return point{c.line, min(x, max(0, len(row)-1))}
		}
		c.line++
		row, x = lineCells(p, c.line), 0
	}
}

// wordBack is the start of this word, or of the one before.
func wordBack(p *mux.Pane, c point) point {
	row := lineCells(p, c.line)
	x := min(c.col, len(row)) - 1
	for {
		for x >= 0 && !wordCell(row[x]) {
			x--
		}
		if x >= 0 || c.line == 0 {
			break
		}
		c.line--
		row = lineCells(p, c.line)
		x = len(row) - 1
	}
	for x > 0 && wordCell(row[x-1]) {
		x--
	}
	return point{c.line, max(x, 0)}
}

// selectedText is the selection's text, each line's trailing blanks
// trimmed, at most maxCopyBytes; cut says it was cut there.
func selectedText(p *mux.Pane, sel *selection) (text string, cut bool) {
	a, b := sel.ordered()
	var out strings.Builder
	var f vt.Frame
	for first := a.line; first <= b.line; first += copyChunk {
		readLines(p, &f, first, min(copyChunk, b.line-first+1))
		if f.Rows == 0 {
			break
		}
		for y := range f.Rows {
			from, to, _ := sel.span(first+y, f.Cols)
			if first+y > a.line {
				out.WriteByte('\n')
			}
			out.WriteString(cellText(f.Row(y), from, to))
			if out.Len() > maxCopyBytes {
				return strings.ToValidUTF8(out.String()[:maxCopyBytes], ""), true
			}
		}
	}
	return out.String(), false
}

// cellText is the text of row's cells from through to, trailing blanks
// trimmed: a cluster as written, nothing for a wide rune's right half.
func cellText(row []vt.Cell, from, to int) string {
	var b strings.Builder
	for x := max(from, 0); x <= to && x < len(row); x++ {
		switch c := row[x]; {
		case c.Flags&vt.FlagPlaceholder != 0:
		case c.Text != "":
			b.WriteString(c.Text)
		case c.Rune == 0:
			b.WriteByte(' ')
		default:
			b.WriteRune(c.Rune)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// copySelection sends the selection to the client's terminal's clipboard
// (OSC 52, which tmux, kitty, iTerm2, WezTerm and others take) and says
// so in the status line.
func (v *view) copySelection(p *mux.Pane, s *paneView) {
	if s.sel == nil || p.Screen() == nil {
		return
	}
	text, cut := selectedText(p, s.sel)
	s.sel = nil
	if v.term != nil {
		v.term.Passthrough("\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07")
	}
	v.notice = fmt.Sprintf("copied %d bytes", len(text))
	if cut {
		v.notice = fmt.Sprintf("copied the first %d KiB", maxCopyBytes>>10)
	}
}

// dragMouse makes a selection of a left-button drag over pane i's body
// at (x, y) of its body; release copies it. It reports whether the
// event was the drag's.
func (v *view) dragMouse(i int, msg tea.MouseMsg, x, y int) bool {
	p := v.m.Grid()[i]
	if p.Screen() == nil {
		return false
	}
	s := v.pv(p)
	at := point{s.frame.First + min(max(y, 0), max(0, s.frame.Rows-1)), min(max(x, 0), max(0, s.frame.Cols-1))}
	switch msg.(type) {
	case tea.MouseClickMsg:
		if msg.Mouse().Button != tea.MouseLeft || y < 0 {
			return false
		}
		v.drag = &dragState{key: p.Key(), from: at}
		return true
	case tea.MouseMotionMsg:
		if v.drag == nil || v.drag.key != p.Key() || msg.Mouse().Button != tea.MouseLeft {
			return false
		}
		if s.sel == nil {
			s.sel = &selection{anchor: v.drag.from, mouse: true}
			v.drag.entered = !v.scrollMode
			v.scrollMode = true
		}
		s.sel.cursor = at
		v.takeFrame(p)
		return true
	case tea.MouseReleaseMsg:
		d := v.drag
		v.drag = nil
		if d == nil || d.key != p.Key() || s.sel == nil || !s.sel.mouse {
			return d != nil
		}
		s.sel.cursor = at
		v.copySelection(p, s)
		if d.entered && s.scroll == 0 {
			v.leaveScroll() // as tmux leaves the copy mode a drag entered
		} else {
			v.takeFrame(p)
		}
		return true
	}
	return false
}

// dragState is a left button held over a pane, maybe about to select.
type dragState struct {
	key     int   // the pane's
	from    point // where it went down
	entered bool  // the drag entered scrollback mode: its release leaves it
}
