package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// BenchmarkRingRetain replays a program's output into a ring at 20 KB/s,
// in 200-byte writes every 10 ms as a TUI writes, for the default five
// minutes, and reports what the ring holds per pane after 20 s (the open
// segment weighs most) and after 5 minutes (the sealed ones), and the
// open segment alone, on average from 20 s on (KiB-open: what a ring
// whose sealed segments are in its file holds in memory). The streams
// are bench/streams.sh's recordings of real programs, from the
// directory in SANDMUX_STREAMS; without it the benchmark replays the vim
// session of vt's corpus.
func BenchmarkRingRetain(b *testing.B) {
	streams := map[string]string{}
	if dir := os.Getenv("SANDMUX_STREAMS"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.stream"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			streams[strings.TrimSuffix(filepath.Base(f), ".stream")] = strings.ToValidUTF8(string(data), "\uFFFD")
		}
	}
	if len(streams) == 0 {
		data, err := os.ReadFile(filepath.Join("..", "session", "vt", "testdata", "replay", "vim.vt"))
		if err != nil {
			b.Fatal(err)
		}
		streams["corpus-vim"] = strings.ToValidUTF8(string(data), "\uFFFD")
	}
	for name, stream := range streams {
		b.Run(name, func(b *testing.B) {
			var early, late, open int
			for b.Loop() {
				synctest.Test(&testing.T{}, func(*testing.T) {
					early, late, open = ringRetain(stream)
				})
			}
			b.ReportMetric(float64(early)/1024, "KiB@20s")
			b.ReportMetric(float64(late)/1024, "KiB@5m")
			b.ReportMetric(float64(open)/1024, "KiB-open")
		})
	}
}

func ringRetain(stream string) (early, late, open int) {
	s := vt.New(80, 24)
	defer s.Close()
	ring := NewRing(RingOptions{}, nil)
	ring.Attach(s)
	defer ring.Close()
	const step = 10 * time.Millisecond
	const second = int(time.Second / step)
	pace(s, stream, 0, 20*second+1)
	early = ring.Bytes()
	// The open segment, once a second: how full it is depends on when
	// it is looked at, so one look says little.
	sum, n := 0, 0
	for i := 20*second + 1; i < int(DefaultRetain/step); i += second {
		pace(s, stream, i, min(i+second, int(DefaultRetain/step)))
		ring.mu.Lock()
		sum += ring.segs[len(ring.segs)-1].size
		ring.mu.Unlock()
		n++
	}
	return early, ring.Bytes(), sum / n
}
