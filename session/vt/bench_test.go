package vt

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hinshun/vt10x"
)

// Inputs for the Write benchmarks, each about 64 KiB.
func benchInputs() map[string]string {
	var plain, colour, frames, wide, mixed strings.Builder
	for i := 0; plain.Len() < 64<<10; i++ {
		fmt.Fprintf(&plain, "line %d: the quick brown fox jumps over the lazy dog\r\n", i)
	}
	for i := 0; colour.Len() < 64<<10; i++ {
		fmt.Fprintf(&colour, "\x1b[3%dmINFO\x1b[0m \x1b[1;38;5;%dmcomponent\x1b[0m: \x1b[38;2;%d;100;50mmessage %d\x1b[m\r\n", i%8, i%256, i%256, i)
	}
	for i := 0; frames.Len() < 64<<10; i++ {
		// A full-screen TUI redraw: home, then every row positioned,
		// styled and cleared to the end of line, in a sync update.
		frames.WriteString("\x1b[?2026h\x1b[H")
		for y := 1; y <= 24; y++ {
			fmt.Fprintf(&frames, "\x1b[%d;1H\x1b[48;5;%dm %-40s\x1b[m\x1b[K", y, (i+y)%256, "status row text")
		}
		frames.WriteString("\x1b[?2026l")
	}
	for i := 0; wide.Len() < 64<<10; i++ {
		wide.WriteString("日本語のテキストと絵文字😀、中文字符。\r\n")
	}
	// A build or agent log: a coloured counter, then words, some past
	// ASCII (as throughput.sh's mixed file).
	words := strings.Fields("sandbox agent pty settle collector cancel snapshot workspace teardown provider émoji ✓ λ → build ok")
	for i := 0; mixed.Len() < 64<<10; i++ {
		fmt.Fprintf(&mixed, "\x1b[%dm%08d\x1b[0m", 31+i%7, i)
		for j := range 10 {
			mixed.WriteString(" " + words[(i*7+j*3)%len(words)])
		}
		mixed.WriteString("\n")
	}
	return map[string]string{"plain": plain.String(), "colour": colour.String(), "frames": frames.String(), "wide": wide.String(), "mixed": mixed.String()}
}

func BenchmarkWrite(b *testing.B) {
	in := benchInputs()
	for _, name := range []string{"plain", "colour", "frames", "wide", "mixed"} {
		b.Run(name, func(b *testing.B) { benchWrite(b, New(80, 24), in[name]) })
	}
	// The log as a PTY gives it (CR LF) to a pane as wide as a terminal:
	// its lines fit, so they go straight into the scrollback
	// (bulkline.go), as a flood through one pane does.
	b.Run("mixed-pty-200x50", func(b *testing.B) {
		benchWrite(b, New(200, 50), strings.ReplaceAll(in["mixed"], "\n", "\r\n"))
	})
}

// Figures measured here (2 shared cores, load average 2-9 from other
// builds, so expect ±40%): go test -run '^$' -bench . -benchmem ./session/vt
//
//	Write plain   5.4-9.9 MB/s   (vt10x alone: 9-16 MB/s; the difference is
//	Write colour  4.5-7.5 MB/s    mostly copying each scrolled line into the
//	Write frames  9.5-12 MB/s     scrollback and one extra vt10x.Write per line)
//	Write wide    6.5-7.4 MB/s
//	Render 80x24  14-18 µs, 0 allocs; 200x50 62-97 µs, 0 allocs
//	Snapshot 80x24 46-65 µs, 0 allocs; 200x50 220-285 µs, 0 allocs
//	GC percent 100 / 400 / 1000: 5.2-9.2 / 9.2-10.7 / 10.2-11.0 MB/s (plain):
//	a higher GC percent helps vt10x's per-character garbage by roughly 10-30%.
//
// With both fast paths (the filter's plain CSI, vt10x's characters and
// plain CSI: csifast.go, third_party/vt10x/fast.go), before and after
// run in turn in one window, load 7-20, medians of 6 (benchstat):
//
//	Write frames  29 -> 76 MiB/s, 8256 -> 0 allocs per 64 KiB
//	VT10x colour  33 -> 106 MiB/s, 8760 -> 0 allocs per 64 KiB
//	Write plain, colour, wide: within the noise (text was fast already)
//
// With a scrolled line of plain runes written from its glyphs
// (pushPlain), the width table and rows read whole, before and after
// in one window on a quiet machine (MB/s; µs):
//
//	Write plain 51 -> 108, colour 80 -> 119, mixed 33 -> 80,
//	wide 18 -> 49, frames 110 -> 110
//	Snapshot 80x24 whole 36 -> 23, redraw 31 -> 4.6;
//	200x50 whole 147 -> 110, redraw 145 -> 13
//
// With a bulk's lines measured as they are found and scanned eight
// bytes at a time (swar.go), old and new test binaries interleaved, four
// rounds each (MB/s):
//
//	Write plain 199-251 -> 387-429, colour 107-138 -> 134-148,
//	mixed-pty-200x50 176-187 -> 215-275; frames, wide, mixed within
//	the noise

// BenchmarkWriteGC measures whether a higher GC percent helps: vt10x builds
// a debug string per character that nobody reads, all short-lived garbage.
func BenchmarkWriteGC(b *testing.B) {
	in := benchInputs()
	for _, pct := range []int{100, 400, 1000} {
		b.Run(fmt.Sprintf("gc%d", pct), func(b *testing.B) {
			old := debug.SetGCPercent(pct)
			defer debug.SetGCPercent(old)
			benchWrite(b, New(80, 24), in["plain"])
		})
	}
}

func benchWrite(b *testing.B, s *Screen, text string) {
	defer s.Close()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s.Write(text)
	}
}

func BenchmarkRender(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			s, f, buf := renderFixture(size[0], size[1])
			defer s.Close()
			b.ReportAllocs()
			for b.Loop() {
				buf = Render(buf[:0], f)
			}
		})
	}
}

func BenchmarkSnapshot(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			s, f, _ := renderFixture(size[0], size[1])
			defer s.Close()
			b.ReportAllocs()
			for b.Loop() {
				s.Snapshot(f)
			}
		})
		// The same screen taken whole each time, as after a flood
		// (every row changed) or by a new client.
		b.Run(fmt.Sprintf("%dx%d-whole", size[0], size[1]), func(b *testing.B) {
			s, f, _ := renderFixture(size[0], size[1])
			defer s.Close()
			b.ReportAllocs()
			for b.Loop() {
				f.Invalidate()
				s.Snapshot(f)
			}
		})
		// A TUI's redraw between snapshots: cursor moves, colours and a
		// hyperlink that leave the screen as it was.
		b.Run(fmt.Sprintf("%dx%d-redraw", size[0], size[1]), func(b *testing.B) {
			s, f, _ := renderFixture(size[0], size[1])
			defer s.Close()
			redraw := fixtureRow(size[0], 3)
			b.ReportAllocs()
			for b.Loop() {
				s.Write(redraw)
				s.Snapshot(f)
			}
		})
		// One row written between snapshots: a typed key's echo.
		b.Run(fmt.Sprintf("%dx%d-echo", size[0], size[1]), func(b *testing.B) {
			s, f, _ := renderFixture(size[0], size[1])
			defer s.Close()
			b.ReportAllocs()
			for b.Loop() {
				s.Write("x")
				s.Snapshot(f)
			}
		})
	}
}

// renderFixture is a screen full of styled text, wide runes, faint,
// strikethrough, underline styles and colours and hyperlinks included.
func renderFixture(cols, rows int) (*Screen, *Frame, []byte) {
	s := New(cols, rows)
	for y := 0; y < rows; y++ {
		s.Write(fixtureRow(cols, y))
	}
	f := &Frame{}
	s.Snapshot(f)
	return s, f, Render(nil, f)
}

// fixtureRow writes row y of renderFixture.
func fixtureRow(cols, y int) string {
	return fmt.Sprintf("\x1b[%d;1H\x1b[3%dm%s \x1b[1;38;5;%dm%s\x1b[0;48;2;%d;20;30m日本 %s\x1b[m"+
		"\x1b]8;;http://h/%d\x1b\\\x1b[2;9;4:3;58;5;%dmlink\x1b]8;;\x1b\\\x1b[m",
		y+1, y%8, strings.Repeat("x", cols/4), y, strings.Repeat("y", cols/4), y, strings.Repeat("z", cols/5), y, y)
}

// Rendering a frame allocates nothing once the buffer has grown.
func TestRenderAllocs(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		s, f, buf := renderFixture(size[0], size[1])
		n := testing.AllocsPerRun(20, func() {
			buf = Render(buf[:0], f)
			buf = RenderText(buf[:0], f)
			s.Snapshot(f)
		})
		s.Close()
		if n != 0 {
			t.Errorf("%dx%d: %v allocs per frame", size[0], size[1], n)
		}
	}
}

// BenchmarkVT10x is the baseline: vt10x alone, without the wrapper.
func BenchmarkVT10x(b *testing.B) {
	in := benchInputs()
	for _, name := range []string{"plain", "colour"} {
		b.Run(name, func(b *testing.B) {
			term := vt10x.New(vt10x.WithSize(80, 24))
			p := []byte(in[name])
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = term.Write(p)
			}
		})
	}
}

// BenchmarkStreams parses the output of real full-screen programs, as
// bench/streams.sh records them, into a pane of the size 48 panes tile
// a 200x50 terminal into (scale.sh's agents rows): SANDMUX_STREAMS names
// the directory (default $TMPDIR/sandmux-streams, streams.sh's).
//
// With a memo in front of the pen table's map (penTable.recent), old and
// new test binaries interleaved ten times each: htop 301 -> 285 µs a
// pass (p = 0.002), apt and log within the noise; vim, plain, colour,
// frames, wide and mixed unchanged.
func BenchmarkStreams(b *testing.B) {
	dir := os.Getenv("SANDMUX_STREAMS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sandmux-streams")
	}
	for _, name := range []string{"htop", "vim", "apt", "log"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".stream"))
		if err != nil {
			b.Skipf("no recorded streams (make them with SANDMUX=./sandmux bench/streams.sh %s): %v", dir, err)
		}
		b.Run(name, func(b *testing.B) {
			s := New(28, 7)
			defer s.Close()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s.Write(string(data))
			}
		})
	}
}
