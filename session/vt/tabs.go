package vt

// Tab stops. vt10x keeps them private, so the Screen mirrors them for
// keyframes: nil while they are the defaults (every 8 columns, as RIS and
// a new screen set them), else one flag per column.

// setTab performs HTS (n=8) or TBC (0: at the cursor, 3: all) on the
// mirror.
func (s *Screen) setTab(n int) {
	if s.tabs == nil {
		s.tabs = defaultTabs(make([]bool, s.cols))
	}
	switch n {
	case 3:
		clear(s.tabs)
	default:
		s.loadCursor()
		if x := s.cur.x; x < len(s.tabs) {
			s.tabs[x] = n == 8
		}
	}
}

func defaultTabs(t []bool) []bool {
	for x := 8; x < len(t); x += 8 {
		t[x] = true
	}
	return t
}

// resizeTabs follows a resize: vt10x keeps the stops of the columns that
// stay, and the Screen sets the defaults in the columns added (see
// extendTabs).
func (s *Screen) resizeTabs(oldCols, cols int) {
	if s.tabs == nil {
		return
	}
	t := make([]bool, cols)
	copy(t, s.tabs)
	for x := (oldCols + 7) / 8 * 8; x < cols; x += 8 {
		t[x] = true
	}
	s.tabs = t
}

// keyframeTabs sets the stops when they are not the defaults.
func (s *Screen) keyframeTabs(k *kfWriter) {
	if s.tabs == nil {
		return
	}
	def := true
	for x, on := range s.tabs {
		if on != (x > 0 && x%8 == 0) {
			def = false
			break
		}
	}
	if def {
		return
	}
	k.b = append(k.b, "\x1b[3g"...)
	for x, on := range s.tabs {
		if on {
			k.cup(x, 0)
			k.b = append(k.b, "\x1bH"...)
		}
	}
}
