package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// pen is how a piece of sandmux's own chrome is drawn (a title, the
// status line, an overlay's text): an SGR before each line of it and a
// reset after. Pane bodies are drawn by vt's run renderer instead.
//
// Chrome is drawn here rather than with lipgloss because lipgloss works
// out the terminal's colours when the program starts, in every sandmux
// process (each client, each ctl call): it reads the terminfo database
// and, inside tmux, waits for `tmux info` before main runs, with no bound
// on the wait. The server learns each client's colours from its handshake
// and adapts what it writes to them (package server).
type pen struct{ sgr string }

// noPen draws text as it is.
var noPen pen

// newPen is a pen in colours of the 256-colour palette (fg, bg; -1 for
// the terminal's own), bold or not.
func newPen(fg, bg int, bold bool) pen {
	var st ansi.Style
	if bold {
		st = st.Bold()
	}
	if fg >= 0 {
		st = st.ForegroundColor(ansi.IndexedColor(fg))
	}
	if bg >= 0 {
		st = st.BackgroundColor(ansi.IndexedColor(bg))
	}
	if len(st) == 0 {
		return noPen
	}
	return pen{sgr: st.String()}
}

// Render draws text with p, each line on its own so that no colour runs
// on past a line's end; tabs become four spaces, as every overlay lays
// text out by its width.
func (p pen) Render(text string) string {
	text = strings.ReplaceAll(text, "\t", "    ")
	if p.sgr == "" {
		return text
	}
	if !strings.Contains(text, "\n") {
		// A title or the status line, drawn with every frame.
		return p.sgr + text + ansi.ResetStyle
	}
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.sgr)
		b.WriteString(line)
		b.WriteString(ansi.ResetStyle)
	}
	return b.String()
}

// boxPen is the colour of an overlay's border.
var boxPen = newPen(45, -1, false)

// box draws text in a rounded border, a space either side of it: an
// overlay (help, prompts, confirmations, the session list). Its lines are
// padded to the widest, which sets the box's width.
func box(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\t", "    ")
	lines := strings.Split(text, "\n")
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	side := boxPen.Render("│")
	var b strings.Builder
	b.WriteString(boxPen.Render("╭" + strings.Repeat("─", w+2) + "╮"))
	for _, l := range lines {
		b.WriteString("\n" + side + " " + l + strings.Repeat(" ", w-ansi.StringWidth(l)) + " " + side)
	}
	b.WriteString("\n" + boxPen.Render("╰"+strings.Repeat("─", w+2)+"╯"))
	return b.String()
}
