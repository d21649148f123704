package ui

import (
	"image/color"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/ui/term"
)

// The user's terminal's colours: each client's Terminal asks its terminal
// for them on attach (OSC 10, 11, 12) and again when the terminal says its
// colour scheme changed (mode 2031); the panes' screens answer their
// children's colour queries with those of the client that typed last, so
// a program picks a light or dark look as it would outside sandmux.

// ColorSchemeMsg says a client's terminal reported a change of its colour
// scheme (CSI ? 997 ; n n): its colours are asked for again.
type ColorSchemeMsg struct{}

// clientTheme is what a client's terminal told of its colours.
type clientTheme struct {
	theme       vt.Theme
	cursorKnown bool // it reported a cursor colour: the foreground's no longer stands in
}

func rgbOf(c color.Color) [3]uint8 {
	r, g, b, _ := c.RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

// colorInput takes a colour report of the view's terminal; it reports
// whether msg was one.
func (v *view) colorInput(msg tea.Msg) bool {
	t := &v.colors
	switch msg := msg.(type) {
	case tea.ForegroundColorMsg:
		if msg.Color == nil {
			return true
		}
		t.theme.FG = rgbOf(msg.Color)
		if !t.cursorKnown {
			t.theme.Cursor = t.theme.FG
		}
	case tea.BackgroundColorMsg:
		if msg.Color == nil {
			return true
		}
		t.theme.BG = rgbOf(msg.Color)
	case tea.CursorColorMsg:
		if msg.Color == nil {
			return true
		}
		t.theme.Cursor, t.cursorKnown = rgbOf(msg.Color), true
	case ColorSchemeMsg:
		if v.term != nil {
			v.term.Passthrough(term.ColorQueries)
		}
	default:
		return false
	}
	v.m.syncTheme()
	return true
}

// syncTheme gives every screen the colours of the client that typed last
// (the newest that may type, until one does), when they changed.
func (m *Model) syncTheme() {
	t := vt.DefaultTheme
	if m.active != nil {
		t = m.active.colors.theme
	}
	m.SetTheme(t)
}
