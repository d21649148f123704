package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An attached client, which then only waits, and a server that has
// drawn its first frame hold a small share of their binary's pages (and
// the C library's): what starting touched is let go (package pagetrim).
// Before, the client held 72 % of them and the server 79 %; then 17 and
// 48 % (a -race build, one idle pane). The client let go of them as it
// attached, and took a third of them back at once as its relay began;
// it lets go a second into the attachment now, and holds 4 to 8 %. The
// server, which let go as the client attached and then drew its first
// frame, lets go a second after too, and holds some 17 %.
func TestAttachedProcessesLetGoOfStartupPages(t *testing.T) {
	tt := startTerm(t, 100, 30, sandmuxBin+" 'cat'")
	tt.waitStarted()
	client := childOf(t, tt.shell)
	server := serverPid(t, tt.dir)
	for _, p := range []struct {
		name  string
		pid   int
		bound float64
	}{{"client", client, 0.12}, {"server", server, 0.35}} {
		// Both let go a second into the attachment (attach's
		// settleAfter, serve's trimAfter); no event tells, so this polls.
		deadline := time.Now().Add(30 * time.Second)
		for {
			rss, size := readOnlyFilePages(t, p.pid)
			if size > 0 && float64(rss) <= p.bound*float64(size) {
				t.Logf("%s (pid %d): %d of %d KiB of read-only file pages resident", p.name, p.pid, rss, size)
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the %s holds %d of its %d KiB of read-only file pages, more than %.0f %%", p.name, rss, size, p.bound*100)
				break
			}
			time.Sleep(50 * time.Millisecond) // a poll interval: nothing tells when the pages went
		}
	}
}

// childOf is the one child of pid (the shell running a test's command).
func childOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		t.Fatalf("pid %d has children %q, want the one sandmux", pid, f)
	}
	child, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatal(err)
	}
	return child
}

// readOnlyFilePages sums, over pid's read-only private mappings of files
// that hold none of its own pages, their resident and their whole size
// in KiB.
func readOnlyFilePages(t *testing.T, pid int) (rss, size int64) {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cand bool
	var mRSS, mSize int64
	flush := func() {
		if cand {
			rss, size = rss+mRSS, size+mSize
		}
		cand = false
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 5 && !strings.HasSuffix(fs[0], ":"):
			flush()
			cand = fs[4] != "0" && len(fs[1]) == 4 && fs[1][0] == 'r' && fs[1][1] == '-' && fs[1][3] == 'p'
		case len(fs) == 3 && fs[0] == "Size:":
			mSize, _ = strconv.ParseInt(fs[1], 10, 64)
		case len(fs) == 3 && fs[0] == "Rss:":
			mRSS, _ = strconv.ParseInt(fs[1], 10, 64)
		case len(fs) == 3 && fs[0] == "Anonymous:" && fs[1] != "0":
			cand = false
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rss, size
}
