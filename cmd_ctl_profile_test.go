package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A running server gives its profiles without a rebuild: a cpu profile
// over its window and the live heap, each a file go tool pprof reads, and
// an execution trace, which go tool trace reads; a
// file that exists already, an unknown profile and a window out of
// bounds are refused and write nothing.
func TestCtlProfile(t *testing.T) {
	s := startCtlServer(t, "", evalLoop)
	s.waitScreen("1", "READY")
	dir := t.TempDir()
	cpu := filepath.Join(dir, "cpu.pprof")
	if got := strings.TrimSpace(s.ok("profile", "--seconds", "1", "-o", cpu)); got != cpu {
		t.Errorf("profile printed %q, want the file %q", got, cpu)
	}
	heap := filepath.Join(dir, "heap.pprof")
	s.ok("profile", "heap", "-o", heap)
	for _, f := range []string{cpu, heap} {
		out, err := exec.Command("go", "tool", "pprof", "-top", f).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "flat") {
			t.Errorf("go tool pprof -top %s: %v\n%s", filepath.Base(f), err, out)
		}
	}
	if out, _ := exec.Command("go", "tool", "pprof", "-top", "-sample_index=inuse_space", heap).CombinedOutput(); !strings.Contains(string(out), "sandmux") {
		t.Errorf("the heap profile holds none of sandmux's functions:\n%s", out)
	}
	// A trace of the server's goroutines: go tool trace reads it, and it
	// holds the server's own goroutines at work.
	tr := filepath.Join(dir, "x.trace")
	s.ok("profile", "trace", "--seconds", "1", "-o", tr)
	if out, err := exec.Command("go", "tool", "trace", "-d=parsed", tr).CombinedOutput(); err != nil || !strings.Contains(string(out), "github.com/sandmux/sandmux/") {
		t.Errorf("go tool trace -d=parsed %s: %v\n%.2000s", filepath.Base(tr), err, out)
	}
	s.fails(exitFailure, "does not exist yet", "profile", "heap", "-o", heap)
	s.fails(exitUsage, "at most one profile", "profile", "threads", "-o", filepath.Join(dir, "x"))
	s.fails(exitUsage, "from 1 to 300", "profile", "--seconds", "0", "-o", filepath.Join(dir, "x"))
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("a refused profile left a file: %v", err)
	}
}

// ctl ls --json says what sandmux holds for each pane, and it grows with
// the pane's scrollback.
func TestCtlLsMemBytes(t *testing.T) {
	s := startCtlServer(t, "", evalLoop, evalLoop)
	s.waitScreen("1", "READY")
	s.waitScreen("2", "READY")
	s.stage("1", "seq 1 1500", "S1")
	ls := s.sessions()
	if ls[0].MemBytes <= 0 || ls[1].MemBytes <= 0 || ls[0].MemBytes <= ls[1].MemBytes {
		t.Errorf("mem_bytes %d after 1500 lines, %d for a pane at its prompt; want both positive, the first larger", ls[0].MemBytes, ls[1].MemBytes)
	}
}
