package main

import (
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
)

// TestCtlServerUsage: ctl ls carries each local pane's CPU share and
// memory, a pane running yes well above the share that counts as working
// while an idle one stays near none. On a loaded machine yes gets only
// what the scheduler gives it, so the bound is a tenth of a core, twice
// the tracker's threshold, not a fast machine's half. The server samples
// every 2s; nothing announces a sample, so the test polls within a
// deadline that only bounds a failure.
func TestCtlServerUsage(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	// The cat's first shares are over its start, exec and loading
	// included: on a loaded machine a tenth of a core or more for the
	// first few hundred milliseconds (shown, not taken for work, as they
	// are over less than a second). It is the idle pane once that start
	// is behind it.
	s.waitSession(1, "the cat idle, near no CPU", func(si control.SessionInfo) bool {
		return si.State == "idle" && si.CPUPercent != nil && *si.CPUPercent <= 5
	})
	if out := s.ok("run", "--name", "busy", "--", "sh", "-c", "yes >/dev/null"); out != "2\n" {
		t.Fatalf("ctl run printed %q, want 2", out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		rep, err := s.call(control.Request{Op: control.OpLs})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Sessions) == 2 {
			idle, busy := rep.Sessions[0], rep.Sessions[1]
			// A process that has just exec'd reads no resident pages in
			// its stat line (the kernel keeps the counts per CPU and
			// folds them into the one the stat line shows in batches),
			// while its start already counts as CPU: the busy pane
			// counts once its memory shows too.
			if busy.CPUPercent != nil && *busy.CPUPercent > 10 && busy.RSSBytes != nil && *busy.RSSBytes > 0 {
				if idle.CPUPercent == nil || *idle.CPUPercent > 5 || idle.RSSBytes == nil || *idle.RSSBytes <= 0 {
					t.Errorf("idle cat: cpu %v, rss %v; want about 0%%, some memory", deref(idle.CPUPercent), deref(idle.RSSBytes))
				}
				// yes writes nothing to its terminal: its CPU alone makes it working.
				s.waitSession(2, "the busy pane working", func(si control.SessionInfo) bool { return si.State == "working" && si.Reason == "CPU" })
				if si := s.session(1); si.State != "idle" {
					t.Errorf("the idle cat is %s (%s)", si.State, si.Reason)
				}
				t.Logf("yes: %.0f%% of a core, %d KiB; cat: %.1f%%, %d KiB", *busy.CPUPercent, *busy.RSSBytes>>10, *idle.CPUPercent, *idle.RSSBytes>>10)
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pane above 10%% CPU with some memory within 60s: %+v", rep.Sessions)
		}
		time.Sleep(200 * time.Millisecond) // a poll interval: samples come every 2s
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestCtlLsReadsUsageNow: ctl ls reads every running pane's CPU and
// memory when it is asked, rather than showing the usage timer's last
// round: a pane that does nothing is not sampled by the timer, so the
// figures would otherwise be as old as its last output. Asked within the
// timer's first interval, a pane just started already has its figures.
func TestCtlLsReadsUsageNow(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	s.waitSession(1, "running", func(si control.SessionInfo) bool { return si.Phase == "running" })
	rep, err := s.call(control.Request{Op: control.OpLs})
	if err != nil {
		t.Fatal(err)
	}
	if si := rep.Sessions[0]; si.CPUPercent == nil || si.RSSBytes == nil {
		t.Errorf("ctl ls of a running cat: cpu %v, rss %v; want both read now", deref(si.CPUPercent), deref(si.RSSBytes))
	}
}
