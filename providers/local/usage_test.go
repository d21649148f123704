package local

import (
	"fmt"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// TestUsageBusyAndIdle: a pane running yes shows its CPU time climbing and
// some resident memory, while an idle sleep beside it uses next to no CPU
// over the same interval; with a cgroup and without one (the process
// tree). The interval is set by the busy pane's progress, polled a bounded
// number of samples, so no sleep decides the outcome.
func TestUsageBusyAndIdle(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *Provider
	}{{"cgroup", New("")}, {"tree", &Provider{NoCgroup: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			// "; exit" keeps sh from exec'ing: yes is a child, which the
			// tree walk must find.
			busy := openWith(t, tc.p, "yes >/dev/null; exit")
			idle := openWith(t, tc.p, "sleep 1000; exit")
			if tc.name == "cgroup" {
				requireCgroup(t, busy)
			}
			busy0, idle0 := usageOf(t, busy), usageOf(t, idle)
			const climb = 200 * time.Millisecond
			var b providers.Usage
			for n := 0; ; n++ {
				if b = usageOf(t, busy); b.CPU-busy0.CPU >= climb {
					break
				}
				if n == 10000 {
					t.Fatalf("yes used %v of CPU over %d samples; want %v", b.CPU-busy0.CPU, n, climb)
				}
				sleepPoll()
			}
			i := usageOf(t, idle)
			if d := i.CPU - idle0.CPU; d > climb/4 {
				t.Errorf("an idle sleep used %v of CPU while yes used %v", d, b.CPU-busy0.CPU)
			}
			if b.RSS <= 0 || i.RSS <= 0 {
				t.Errorf("RSS busy %d, idle %d; want both above 0", b.RSS, i.RSS)
			}
			t.Logf("yes: %v CPU, %d KiB; sleep: %v CPU, %d KiB", b.CPU-busy0.CPU, b.RSS>>10, i.CPU-idle0.CPU, i.RSS>>10)

			teardown(t, busy)
			after := usageOf(t, busy)
			if after.CPU < b.CPU || after.RSS != 0 {
				t.Errorf("usage once gone = %+v; want CPU at least %v and no memory", after, b.CPU)
			}
			if busy.cg != nil {
				busy.cg.mu.Lock()
				open := busy.cg.statOpen
				busy.cg.mu.Unlock()
				if open {
					t.Error("the pane's cpu.stat is still open once its cgroup is gone")
				}
			}
		})
	}
}

func openWith(t *testing.T, p *Provider, script string) *handle {
	t.Helper()
	pty, err := p.Open(t.Context(), providers.Spec{Command: []string{"sh", "-c", script}, Size: providers.Size{Cols: 80, Rows: 24}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { teardown(t, pty) })
	return pty.(*handle)
}

func usageOf(t *testing.T, h *handle) providers.Usage {
	t.Helper()
	u, ok := h.Usage()
	if !ok {
		t.Fatalf("Usage: not available (cgroup %v)", h.cg != nil)
	}
	return u
}

// TestParseUsage reads CPU times and the resident set from stat lines
// whose command names hold spaces and parentheses, and refuses short or
// negative ones.
func TestParseUsage(t *testing.T) {
	line := func(comm string, utime, cutime, rss int) string {
		return fmt.Sprintf("42 (%s) R 1 42 42 0 -1 4194304 100 0 0 0 %d 5 %d 2 20 0 1 0 1234 5678 %d 18446744073709551615", comm, utime, cutime, rss)
	}
	ticks, pages, err := parseUsage([]byte(line("a b) (c", 10, 3, 77)))
	if err != nil || ticks != 10+5+3+2 || pages != 77 {
		t.Errorf("parseUsage = %d, %d, %v; want 20, 77", ticks, pages, err)
	}
	for _, bad := range []string{"", "42 (x", line("x", -1, 0, 1), line("x", 1, 0, -5), "42 (x) R 1 2 3"} {
		if _, _, err := parseUsage([]byte(bad)); err == nil {
			t.Errorf("parseUsage(%q) accepted", bad)
		}
	}
}

// FuzzParseUsage: whatever a process names itself, the fields read are
// the kernel's; any prefix of a line is refused or read, never a panic.
func FuzzParseUsage(f *testing.F) {
	f.Add("yes", uint32(1), uint32(2), uint32(3))
	f.Add(") R 1 2", uint32(0), uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, comm string, utime, stime, rss uint32) {
		if len(comm) > 15 {
			return
		}
		line := fmt.Sprintf("9 (%s) S 1 9 9 0 -1 0 0 0 0 0 %d %d 0 0 20 0 1 0 1 2 %d 3\n", comm, utime, stime, rss)
		ticks, pages, err := parseUsage([]byte(line))
		if err != nil || ticks != uint64(utime)+uint64(stime) || pages != int64(rss) {
			t.Fatalf("parseUsage(%q) = %d, %d, %v", line, ticks, pages, err)
		}
		for i := range line {
			_, _, _ = parseUsage([]byte(line[:i]))
		}
	})
}
