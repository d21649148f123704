package vt

// Which screen rows may have changed, so that Snapshot compares only
// those with the frame it refreshes. Everything reaches vt10x through the
// pending buffer (flush); the writers that know the one row their bytes
// change say so (known), and a flush of any other bytes counts as
// changing every row. So a path nobody classified costs a whole
// comparison, never a stale row.

// known records that the bytes appended to pending since start change
// only row y (y < 0: no cell at all, as a pen change). It counts only
// when everything pending before start was known too.
func (s *Screen) known(start, y int) {
	if s.knownLen != start {
		return
	}
	s.knownLen = len(s.pending)
	if y >= 0 && y < s.rows {
		s.touched = append(s.touched, y)
	}
}

// flushed records what the flush of pending changed.
func (s *Screen) flushed() {
	if s.knownLen != len(s.pending) {
		s.touchAll()
	} else {
		s.rowVer++
		for _, y := range s.touched {
			if y < len(s.rowVers) {
				s.rowVers[y] = s.rowVer
			}
		}
	}
	s.knownLen, s.touched = 0, s.touched[:0]
}

// touchAll counts every row as changed.
func (s *Screen) touchAll() {
	s.rowVer++
	s.allVer = s.rowVer
}

// rowChangedSince reports whether row y may have changed after version v.
func (s *Screen) rowChangedSince(y int, v uint64) bool {
	return s.allVer > v || y >= len(s.rowVers) || s.rowVers[y] > v
}

// resizeRows sizes the row versions for a new height.
func (s *Screen) resizeRows() {
	s.rowVers = make([]uint64, s.rows)
	s.touchAll()
}
