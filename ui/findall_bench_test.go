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
//	                      load 2    load 4
//	"runtime error"       14 ms     38 ms
//	"Runtime error"       14 ms     27 ms
//	"re:runtime e(rr)?or" 25 ms     37 ms
//
// A regular expression without a literal of two characters that every
// match holds ("re:[0-9]+x") reads every line: about 1 s here.
// (session/vt's BenchmarkSearchAll is the same search on one goroutine.)
func BenchmarkSearchPanes(b *testing.B) {
	targets := make([]findTarget, 200)
	for i := range targets {
		s := vt.New(80, 24, vt.WithScrollback(10000))
		b.Cleanup(s.Close)
		s.Write(benchOutput(i, 10000))
		targets[i] = findTarget{key: i, screen: s}
	}
	for _, q := range []string{"runtime error", "Runtime error", "re:runtime e(rr)?or"} {
		m, err := vt.Compile(q)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				found, _ := searchPanes(b.Context(), targets, m, maxFound)
				if q != "Runtime error" && len(found) != 3 {
					b.Fatalf("found %d, want 3", len(found))
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
