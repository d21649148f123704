package vt

// Theme is the colours of the user's terminal, which a child asks for
// with OSC 10, 11 and 12 (and whose darkness with CSI ? 996 n) to choose a
// light or dark look. The UI sets it from the terminal that typed last.
type Theme struct {
	FG, BG, Cursor [3]uint8
}

// DefaultTheme is what a Screen answers until told otherwise: a dark
// theme, the common case (vt10x would report black on black).
var DefaultTheme = Theme{FG: [3]uint8{0xe5, 0xe5, 0xe5}, Cursor: [3]uint8{0xe5, 0xe5, 0xe5}}

// Dark reports whether the background is dark: its luma below half.
func (t Theme) Dark() bool {
	r, g, b := int(t.BG[0]), int(t.BG[1]), int(t.BG[2])
	return 299*r+587*g+114*b < 500*255
}

// SetTheme sets the colours colour queries are answered with. When the
// theme turns from dark to light or back, a child that asked for
// colour-scheme notifications (mode 2031) is told, as a terminal tells it.
func (s *Screen) SetTheme(t Theme) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.f.theme
	s.f.theme = t
	if old.Dark() != t.Dark() && s.f.st.modes.ThemeUpdates {
		s.f.schemeReport()
	}
}

// schemeReport is CSI ? 997 ; 1 n for a dark theme, 2 for a light one:
// the answer to CSI ? 996 n and the notification of mode 2031.
func (f *filter) schemeReport() {
	f.out.reply(f.canon('?', 'n', 997, 2-boolInt(f.theme.Dark())))
}
