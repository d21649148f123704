package local

import "testing"

// A round of usage samples reads every awake pane's cpu.stat: through the
// descriptor kept open (one pread) against opening it anew each time
// (open, read, read, close and a path walk).
func BenchmarkCPUStat(b *testing.B) {
	c, err := newCgroup()
	if err != nil {
		b.Skipf("SKIPPED: no cgroup for a pane here: %v", err)
	}
	b.Cleanup(func() { _ = c.remove() })
	var buf [1024]byte
	b.Run("reopened", func(b *testing.B) {
		for b.Loop() {
			if _, err := readSmall(c.file("cpu.stat"), buf[:]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.cpuUsage(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
