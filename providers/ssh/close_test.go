package ssh

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// A pane closed as soon as it opened leaves nothing on the host. sshd
// forks the command, and the command takes its terminal a moment later:
// a connection closed in between hangs up a terminal nobody holds yet,
// and the command ran on under init. It now ends at once, finding its
// terminal hung up. One close in some eight fell in that moment here.
func TestCloseAtOnceLeavesNothing(t *testing.T) {
	s := startServer(t)
	var markers []string
	for range 16 {
		p, err := New(nil).Open(t.Context(), providers.Spec{
			Command: []string{"sleep", "1000"},
			Options: s.options(t, ""),
			Size:    providers.Size{Cols: 80, Rows: 24},
		})
		if err != nil {
			t.Fatal(err)
		}
		markers = append(markers, p.(*handle).marker)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, pid := range markedPids(t, markers) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: what a failure left.
		}
	})
	// Once sshd's process for each connection is gone, every command it
	// started carries its marker (or has ended already).
	s.waitConnectionsGone(t)
	for _, pid := range markedPids(t, markers) {
		waitProcessGone(t, pid)
	}
}

// waitConnectionsGone polls until sshd's process group holds sshd alone:
// its per-connection processes exit with no event a test can wait on.
func (s *server) waitConnectionsGone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(groupMembers(s.pgid)) > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("sshd's connections still run 20s after they closed: %v", groupMembers(s.pgid))
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: no event to wait on
	}
}

// groupMembers lists the live processes of process group pgid.
func groupMembers(pgid int) []int {
	var pids []int
	for _, pid := range procPids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(b), ") ")
		f := strings.Fields(rest)
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// markedPids lists the live processes whose environment holds one of the
// markers.
func markedPids(t *testing.T, markers []string) []int {
	t.Helper()
	var pids []int
	for _, pid := range procPids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !processRunning(pid) {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if v, ok := strings.CutPrefix(kv, markerVar+"="); ok && slices.Contains(markers, v) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// procPids lists the pids in /proc.
func procPids() []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
