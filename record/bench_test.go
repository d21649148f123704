package record

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// BenchmarkWrite is vt's BenchmarkWrite input (plain lines and colour),
// and floodText, written to a screen without a tap and with a ring
// tapped.
//
// Measured (2 shared cores, busy): see the report in the commit message.
func BenchmarkWrite(b *testing.B) {
	var plain, colour strings.Builder
	for i := 0; plain.Len() < 64<<10; i++ {
		fmt.Fprintf(&plain, "line %d: the quick brown fox jumps over the lazy dog\r\n", i)
	}
	for i := 0; colour.Len() < 64<<10; i++ {
		fmt.Fprintf(&colour, "\x1b[3%dmINFO\x1b[0m \x1b[1;38;5;%dmcomponent\x1b[0m: message %d\x1b[m\r\n", i%8, i%256, i)
	}
	for _, in := range []struct{ name, text string }{{"plain", plain.String()}, {"colour", colour.String()},
		{"flood", floodText(64 << 10)}} {
		for _, tapped := range []bool{false, true} {
			name := in.name + "/none"
			if tapped {
				name = in.name + "/ring"
			}
			b.Run(name, func(b *testing.B) {
				s := vt.New(80, 24)
				defer s.Close()
				if tapped {
					r := NewRing(RingOptions{}, NewBudget(64<<20))
					r.Attach(s)
					defer r.Close()
				}
				b.SetBytes(int64(len(in.text)))
				for b.Loop() {
					s.Write(in.text)
				}
			})
		}
	}
}

// floodText is at least n bytes of coloured log lines of varied words and
// numbers, as a flood (a cat of a build or server log) writes them.
func floodText(n int) string {
	words := strings.Fields("request served cache miss retry connection reset by peer token expired " +
		"compiling package linking binary test passed failed skipped worker started stopped queue full")
	levels := []string{"INFO", "DEBUG", "WARN", "ERROR"}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\x1b[2m12:%02d:%02d.%03d\x1b[0m \x1b[3%dm%-5s\x1b[0m \x1b[1;38;5;%dm%s\x1b[0m:",
			i/3600%60, i/60%60, rng.IntN(1000), 1+rng.IntN(6), levels[rng.IntN(4)], rng.IntN(256), words[rng.IntN(len(words))])
		for range 2 + rng.IntN(8) {
			b.WriteString(" " + words[rng.IntN(len(words))])
		}
		fmt.Fprintf(&b, " id=%08x took=%dms\r\n", rng.Uint32(), rng.IntN(5000))
	}
	return b.String()
}

// BenchmarkPack packs one segment a flood filled (DefaultSegmentBytes of
// floodText, which codec gives S2) with each codec: zstd is what every
// segment took before floods went to S2. ratio is the segment's plain
// bytes over its packed bytes.
func BenchmarkPack(b *testing.B) {
	base := testSegment(0, DefaultSegmentBytes, 60*time.Microsecond)
	if base.codec(DefaultSegmentBytes) != packS2 {
		b.Fatal("the flood's segment is not packed with S2")
	}
	for _, codec := range []byte{packZstd, packS2} {
		b.Run("flood/"+codecNames[codec], func(b *testing.B) {
			b.SetBytes(int64(len(base.data)))
			packed := 0
			for b.Loop() {
				s := segment{start: base.start, kf: base.kf, data: base.data, events: base.events}
				s.pack(codec)
				packed = len(s.packed)
			}
			b.ReportMetric(float64(len(base.data))/float64(packed), "ratio")
		})
	}
}
