package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/session/vt"
)

// BenchmarkSearchPanes is the search across panes as prefix / runs it:
// 200 panes of 80x24, each with 10 000 lines of log-like output written
// through the emulator, searched on GOMAXPROCS workers for a query on
// three lines in all. It must stay well within 200 ms. Measured on 2
// shared cores: go test -run '^$' -bench SearchPanes ./ui
//
//	"runtime error"       14-24 ms (load average 2-6)
//	"Runtime error"       14-23 ms
//	"re:runtime e(rr)?or" 24-25 ms
//	"re:\d+x\d+"          1.7 s
//
// The last is a regular expression without two literal characters in a
// row that every match holds: the pair masks rule out no line, so the
// regexp package reads all 2 million.
// (session/vt's BenchmarkSearchAll is the same search on one goroutine.)
func BenchmarkSearchPanes(b *testing.B) {
	targets := make([]findTarget, 200)
	for i := range targets {
		s := vt.New(80, 24, vt.WithScrollback(10000))
		b.Cleanup(s.Close)
		s.Write(benchOutput(i, 10000))
		targets[i] = findTarget{key: i, screen: s}
	}
	for _, c := range []struct {
		q    string
		want int
	}{{"runtime error", 3}, {"Runtime error", 0}, {"re:runtime e(rr)?or", 3}, {`re:\d+x\d+`, 0}} {
		m, err := vt.Compile(c.q)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.q, func(b *testing.B) {
			for b.Loop() {
				if found, _ := searchPanes(b.Context(), targets, m, maxFound); len(found) != c.want {
					b.Fatalf("found %d, want %d", len(found), c.want)
				}
			}
		})
	}
}

// benchOutput is pane i's output: lines of a log, a panic in three panes.
func benchOutput(i, lines int) string {
	words := []string{"request", "served", "worker", "cache", "miss", "hit", "GET", "POST", "/api/v1/items",
		"in", "ms", "user", "session", "token", "refreshed", "build", "step", "ok", "retrying", "upstream"}
	levels := []string{"INFO ", "DEBUG", "WARN ", "INFO ", "INFO "}
	var b strings.Builder
	for l := range lines {
		if (i == 7 || i == 99 || i == 198) && l == lines/2 {
			b.WriteString("panic: runtime error: index out of range [3] with length 3\r\n")
			continue
		}
		n := b.Len()
		fmt.Fprintf(&b, "2026-12-01T12:%02d:%02d.%03dZ %s pane-%d", l/3600%60, l/60%60, l%1000, levels[(i+l)%len(levels)], i)
		for k := 0; b.Len()-n < 30+(l*7+i)%50; k++ {
			b.WriteString(" " + words[(l*13+k*7+i)%len(words)])
		}
		b.WriteString("\r\n")
	}
	return b.String()
}
