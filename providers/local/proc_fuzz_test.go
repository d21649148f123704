package local

import (
	"fmt"
	"testing"
)

// FuzzParseStat: a process chooses its own name (up to 15 bytes, any of
// them, parentheses and spaces included), so a stat line must parse to the
// fields the kernel wrote whatever the name, and a malformed line must be
// refused, never misread.
func FuzzParseStat(f *testing.F) {
	f.Add("sleep", 'S', 1, 2, 3, uint64(4))
	f.Add(") Z 1 1 1", 'Z', 10, 20, 30, uint64(40))
	f.Add("a b) (c", 'R', 7, 7, 7, uint64(1<<40))
	f.Fuzz(func(t *testing.T, comm string, state rune, ppid, pgrp, sid int, start uint64) {
		if len(comm) > 15 || state < 'A' || state > 'Z' || ppid < 0 || pgrp < 0 || sid < 0 {
			return
		}
		line := fmt.Sprintf("123 (%s) %c %d %d %d 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 %d 1 2 3\n", comm, state, ppid, pgrp, sid, start)
		st, err := parseStat([]byte(line))
		if err != nil {
			t.Fatalf("parseStat(%q): %v", line, err)
		}
		if st.state != byte(state) || st.ppid != ppid || st.pgrp != pgrp || st.session != sid || st.start != start {
			t.Fatalf("parseStat(%q) = %+v", line, st)
		}
		// Any prefix of a line is refused or parsed, never a panic.
		for i := range line {
			_, _ = parseStat([]byte(line[:i]))
		}
	})
}
