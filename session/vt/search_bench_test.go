package vt

import (
	"fmt"
	"testing"
)

// benchScreens returns n screens of 80x24 whose scrollback holds lines
// lines of log-like text each, pushed as scrolled rows are (the parser
// would take minutes to scroll this much); "runtime error" is on three
// lines of the whole set.
func benchScreens(b *testing.B, n, lines int) []*Screen {
	words := []string{"request", "served", "worker", "cache", "miss", "hit", "GET", "POST", "/api/v1/items",
		"in", "ms", "user", "session", "token", "refreshed", "build", "step", "ok", "retrying", "upstream"}
	levels := []string{"INFO ", "DEBUG", "WARN ", "INFO ", "INFO "}
	screens := make([]*Screen, n)
	row := make([]Cell, 80)
	for i := range screens {
		s, _ := newScreen(b, 80, 24, WithScrollback(lines))
		s.mu.Lock()
		for l := range lines {
			text := fmt.Sprintf("2026-12-01T12:%02d:%02d.%03dZ %s pane-%d", l/3600%60, l/60%60, l%1000, levels[(i+l)%len(levels)], i)
			for k := 0; len(text) < 30+(l*7+i)%50; k++ {
				text += " " + words[(l*13+k*7+i)%len(words)]
			}
			if (i == 7 || i == 99 || i == 198) && l == lines/2 {
				text = "panic: runtime error: index out of range [3] with length 3"
			}
			for x := range row {
				row[x] = Cell{Rune: ' '}
				if x < len(text) {
					row[x].Rune = rune(text[x])
				}
			}
			s.sb.push(row, false)
		}
		s.mu.Unlock()
		s.Write("$ make test\r\nok  \tgithub.com/example/pkg\t0.012s\r\n$ ")
		screens[i] = s
	}
	return screens
}

// BenchmarkSearchAll searches 200 panes of 80x24 with 10 000 lines of
// scrollback each, one after the other on one goroutine; the search
// across panes must take well under 200 ms. Measured (2 shared cores,
// load average 2-5): go test -run '^$' -bench SearchAll ./session/vt
//
//	"runtime error" (folded)   24-41 ms for the 200 panes
//	"Runtime error" (as typed) 24-30 ms
//	"re:runtime e(rr)?or"      25-44 ms
//
// Without the pair masks (lineMask) the plain queries took 260 ms: each
// line's text is a heap object of its own, and reading 2 million of them
// is cache misses. The mask costs Write about 37 ns per scrolled line of
// 63 bytes (a line of plain output costs Write about 1.5 µs). The UI
// spreads panes over GOMAXPROCS workers as well.
//
// With the scrollback's older lines in compressed blocks (sbcold.go),
// unpacking every block took the search 220 ms and 366 MB of garbage.
// A block the query's byte pairs rule out is skipped unread: its pairs
// are made the first time a search reads it (made as lines scroll, they
// took a flood's parse a quarter of its time). Old and new test
// binaries in turn: 15.6 ms for each query against 14.6 with the lines
// unpacked; the first search of all, which reads every block, 445 ms
// (-benchtime 1x). A regexp with no literal a match must hold still
// unpacks every block.
func BenchmarkSearchAll(b *testing.B) {
	screens := benchScreens(b, 200, 10000)
	for _, q := range []string{"runtime error", "Runtime error", "re:runtime e(rr)?or"} {
		m, err := Compile(q)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q, func(b *testing.B) {
			var dst []Match
			b.ReportAllocs()
			for b.Loop() {
				found := 0
				for _, s := range screens {
					dst = s.Search(m, 1000, dst[:0])
					found += len(dst)
				}
				if want := 3; q != "Runtime error" && found != want {
					b.Fatalf("found %d, want %d", found, want)
				}
			}
		})
	}
}
