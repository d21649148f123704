package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/termsafe"
)

// helpText is the help overlay's text, written from the action table and the
// bindings in force: each action with the keys bound to it after the
// prefix, then those bound without it ([keys.root]).
func (v *view) helpText() string {
	// The box's border and padding take four columns; in a terminal too
	// narrow for a line, its text wraps under its own column, never into
	// the next row's fragments.
	inner := max(20, v.width-4)
	var b strings.Builder
	writeWrapped(&b, fmt.Sprintf("sandmux — press %s, then:", v.m.opts.Prefix), inner, "")
	b.WriteString("\n")
	for _, l := range helpLines(v.m.keys.prefix) {
		writeHelpLine(&b, l, inner)
	}
	if root := helpLines(v.m.keys.root); len(root) > 0 {
		b.WriteString("\nwithout the prefix:\n")
		for _, l := range root {
			writeHelpLine(&b, l, inner)
		}
	}
	b.WriteString("\n")
	writeWrapped(&b, "In scrollback: v starts a selection (or drag the mouse), arrows, w b 0 $ extend it,", inner, "")
	writeWrapped(&b, "V takes whole lines, y or enter copies it to your terminal's clipboard.", inner, "")
	writeWrapped(&b, "Keys are bound by the actions' names in the config's [keys] (see config.example.toml).", inner, "")
	writeWrapped(&b, "Everything else goes to the focused pane. Any key closes this.", inner, "")
	return strings.TrimSuffix(b.String(), "\n")
}

// helpRows is how many rows of help's text fit this view: the status line
// and the box's border take three.
func (v *view) helpRows() int { return max(3, v.height-3) }

// helpFrame is the help overlay as drawn: the whole text when it fits,
// else the rows from top and a last line saying how to scroll, so that no
// binding is out of reach in a small terminal.
func (v *view) helpFrame(md helpModal) string {
	text := v.helpText()
	lines := strings.Split(text, "\n")
	rows := v.helpRows()
	if len(lines) <= rows {
		return box(text)
	}
	top := min(md.top, len(lines)-(rows-1))
	shown := slices.Clone(lines[top : top+rows-1])
	more := fmt.Sprintf("— %d–%d of %d: up down pgup pgdn home end scroll, other keys close —", top+1, top+rows-1, len(lines))
	shown = append(shown, ansi.Truncate(more, max(20, v.width-4), "…"))
	return box(strings.Join(shown, "\n"))
}

// scrollHelp is where help's text starts after key, and whether key
// scrolls it at all: with all of it shown, every key closes help. Only
// keys nobody presses to dismiss a page scroll (not space, not letters):
// "any key closes help" stays true for the keys people close it with.
func (v *view) scrollHelp(md helpModal, key string) (int, bool) {
	n, rows := strings.Count(v.helpText(), "\n")+1, v.helpRows()
	if n <= rows {
		return 0, false
	}
	page, last := rows-1, n-(rows-1)
	top := md.top
	switch key {
	case "up":
		top--
	case "down":
		top++
	case "pgup":
		top -= page
	case "pgdown":
		top += page
	case "home":
		top = 0
	case "end":
		top = last
	default:
		return 0, false
	}
	return max(0, min(top, last)), true
}

// helpKeyColumn is the width of help's key column and the space after it.
const helpKeyColumn = 10

// writeHelpLine writes one binding, its text wrapped to width under its
// own column.
func writeHelpLine(b *strings.Builder, l helpLine, width int) {
	head := fmt.Sprintf("  %-7s ", l.keys)
	indent := strings.Repeat(" ", helpKeyColumn)
	if ansi.StringWidth(head) > helpKeyColumn || width-helpKeyColumn < 12 {
		// Long keys, or too little room for a column: the text below.
		writeWrapped(b, strings.TrimRight(head, " "), width, "")
		writeWrapped(b, indent+l.help, width, indent)
		return
	}
	writeWrapped(b, head+l.help, width, indent)
}

// writeWrapped writes text word-wrapped to width, its continuation lines
// starting with indent, each line ended.
func writeWrapped(b *strings.Builder, text string, width int, indent string) {
	prefix, limit := "", width
	for {
		line, rest, more := strings.Cut(ansi.Wrap(text, limit, ""), "\n")
		b.WriteString(prefix + strings.TrimRight(line, " ") + "\n")
		if !more {
			return
		}
		text = strings.ReplaceAll(strings.TrimLeft(rest, " "), "\n", " ")
		prefix, limit = indent, max(1, width-ansi.StringWidth(indent))
	}
}

// helpLine is one line of help: the keys, then what they do.
type helpLine struct{ keys, help string }

// helpLines lists table's bindings in the action table's order, a
// group (focus-1 … focus-9) as one line while its default keys hold.
func helpLines(table map[string]*action) []helpLine {
	var out []helpLine
	for i := 0; i < len(actions); i++ {
		a := &actions[i]
		if a.group != "" {
			j := i
			for j < len(actions) && actions[j].group == a.group && slices.Equal(keysOf(table, &actions[j]), actions[j].keys) {
				j++
			}
			if j-i == countGroup(a.group) {
				out = append(out, helpLine{a.groupKeys, a.help})
				i = j - 1
				continue
			}
		}
		if keys := keysOf(table, a); len(keys) > 0 {
			help := a.help
			if a.group != "" {
				help = strings.Replace(a.help, "that number", "number "+strings.TrimPrefix(a.name, "focus-"), 1)
			}
			out = append(out, helpLine{strings.Join(keys, " "), help})
		}
	}
	return out
}

func countGroup(group string) int {
	n := 0
	for _, a := range actions {
		if a.group == group {
			n++
		}
	}
	return n
}

func (v *view) confirmText() string {
	running := 0
	for _, p := range v.m.Grid() {
		if p.Phase() == mux.PhaseRunning || p.Phase() == mux.PhaseStarting {
			running++
		}
	}
	return box(fmt.Sprintf("%d session(s) still running.\nQuit and tear them all down? (y/n)", running))
}

// confirmCloseText asks before x closes a pane that runs.
func (v *view) confirmCloseText() string {
	i := v.m.IndexOf(v.closingKey())
	if i < 0 {
		return box("That pane is gone. (any key)")
	}
	return box(fmt.Sprintf("Close pane %d (%s)? It is torn down. (y/n)", i+1, termsafe.String(v.m.Grid()[i].Spec().Name)))
}

// teardownText is the modal shown while a pane closes or everything shuts
// down: one line per session with its teardown stage.
func (v *view) teardownText() string {
	var b strings.Builder
	quitting := v.m.Quitting()
	killing := v.m.KillRequested()
	if quitting {
		b.WriteString("Quitting: tearing down every session\n\n")
	} else {
		b.WriteString("Closing pane\n\n")
	}
	for _, p := range v.m.Grid() {
		if !quitting && p.Key() != v.closingKey() {
			continue
		}
		if !quitting {
			killing = p.Killing()
		}
		termsafe.Fprintf(&b, "  %-16s %s\n", p.Spec().Name, p.Status())
	}
	b.WriteString("\n")
	if killing {
		b.WriteString("Killing now (SIGKILL); waiting for everything to settle.")
	} else if quitting {
		b.WriteString("q again: kill everything now.")
	} else {
		b.WriteString("x or k again: kill now.")
	}
	return box(b.String())
}
