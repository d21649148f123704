package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// escapeScript starts two processes that leave the pane's session: a
// setsid child, and a double-forked daemon in a session of its own whose
// parent exits (so sandmux adopts it). It prints their pids ("esc N"), the
// leader's ("leader N"), and then waits.
const escapeScript = `echo "leader $$"
setsid sleep 1000 & echo "esc $!"
(setsid sh -c 'echo "esc $$"; exec sleep 1000' &)
exec sleep 1000`

// startEscapes starts escapeScript and returns the leader's and the
// escapees' pids once both escapees have left the session.
func startEscapes(t *testing.T, m *Manager) (*Session, int, []int) {
	t.Helper()
	w := newWatchSink()
	s := startLocal(t, m, w, "sh", "-c", escapeScript)
	var leader int
	var esc []int
	for len(esc) < 2 {
		out := w.waitFor(t, "esc ")
		esc, leader = esc[:0], 0
		for line := range strings.Lines(out) {
			var n int
			if _, err := fmt.Sscanf(line, "esc %d", &n); err == nil {
				esc = append(esc, n)
			} else if _, err := fmt.Sscanf(line, "leader %d", &n); err == nil {
				leader = n
			}
		}
		if len(esc) < 2 {
			select {
			case <-w.changed:
			case <-time.After(20 * time.Second):
				t.Fatalf("escapees never reported; output %q", out)
			}
		}
	}
	t.Cleanup(func() {
		for _, pid := range esc {
			_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: a survivor must not outlive the test.
		}
	})
	// Both must really be out of the pane's session before the teardown.
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range esc {
		for sessionOf(pid) != pid {
			if time.Now().After(deadline) {
				t.Fatalf("escapee %d never made a session of its own (session %d)", pid, sessionOf(pid))
			}
			time.Sleep(time.Millisecond) // a poll interval: setsid has no event
		}
	}
	return s, leader, esc
}

func sessionOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 4 {
		return -1
	}
	n, _ := strconv.Atoi(f[3])
	return n
}

// paneCgroup is the cgroup v2 a process is in, as /proc/PID/cgroup says.
func paneCgroup(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// TestContract_C14_EscapeesDieWithPane: a setsid child and a double-forked
// daemon die with their pane on close, kill and quit, both with the pane
// in a cgroup of its own and with the fallback (session plus marker); and
// the teardown leaves no process, zombie or cgroup behind.
func TestContract_C14_EscapeesDieWithPane(t *testing.T) {
	ways := []struct {
		name string
		do   func(m *Manager, id ID) error
	}{
		{"close", func(m *Manager, id ID) error { return m.Close(context.Background(), id) }},
		{"kill", func(m *Manager, id ID) error { return m.Kill(context.Background(), id) }},
		{"quit", func(m *Manager, _ ID) error { return m.Shutdown(context.Background()) }},
	}
	for _, mode := range []string{"cgroup", "fallback"} {
		for _, way := range ways {
			t.Run(mode+"/"+way.name, func(t *testing.T) {
				if mode == "fallback" {
					t.Setenv("SANDMUX_NO_CGROUP", "1")
				}
				m := localManager()
				s, leader, esc := startEscapes(t, m)
				cg := paneCgroup(leader)
				if inPane := strings.Contains(filepath.Base(cg), "sandmux-"); inPane != (mode == "cgroup") {
					if mode == "cgroup" && os.Getenv("SANDMUX_REQUIRE_ALL") != "1" {
						t.Skipf("SKIPPED: the pane is not in a cgroup of its own (%q): cgroup v2 not writable here", cg)
					}
					t.Fatalf("pane leader in cgroup %q, want a sandmux pane cgroup: %v", cg, mode == "cgroup")
				}
				err := way.do(m, s.ID())
				m.Wait()
				info := s.Info()
				if err != nil || !info.Killed {
					t.Errorf("%s = %v, killed %v; want the pane verified gone", way.name, err, info.Killed)
				}
				for _, pid := range esc {
					if !pidGone(pid) {
						t.Errorf("escapee %d survived the pane's %s (or is an unreaped zombie)", pid, way.name)
					}
				}
				checkNoLeftovers(t)
			})
		}
	}
}

// checkNoLeftovers fails if this process has a zombie child, or a pane
// cgroup of this process is left.
func checkNoLeftovers(t *testing.T) {
	t.Helper()
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if pid, _ := strconv.Atoi(f); pid > 0 {
				if st, _ := os.ReadFile("/proc/" + f + "/stat"); strings.Contains(string(st), ") Z ") {
					t.Errorf("zombie child %d left", pid)
				}
			}
		}
	}
	if left := leftCgroups(); len(left) > 0 {
		t.Errorf("pane cgroups left: %v", left)
	}
}

// leftCgroups lists the pane cgroups this process made that still exist.
func leftCgroups() []string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var found []string
	for line := range strings.Lines(string(b)) {
		pre, post, _ := strings.Cut(line, " - ")
		if f := strings.Fields(pre); len(f) >= 5 && strings.HasPrefix(post, "cgroup2 ") {
			m, _ := filepath.Glob(filepath.Join(f[4], paneCgroup(os.Getpid()), fmt.Sprintf("sandmux-%d-*", os.Getpid())))
			found = append(found, m...)
		}
	}
	return found
}

// TestContract_C14_SurvivorsNamed: the leader died of the hang-up, but a
// member of its group outlived SIGKILL. The session is not reported
// killed, and the teardown names the survivor by pid and command instead
// of passing for "killed by SIGHUP".
func TestContract_C14_SurvivorsNamed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.obey = map[syscall.Signal]bool{}
		f.background = true
		f.survivors = []providers.Process{{PID: 4242, Command: "sleep 1000"}}
		m := managerWith(f)
		opts := testOpts
		opts.Bound = 8 * time.Second
		s := start(t, m, opts)
		f.exit(providers.ExitStatus{Code: -1, Signal: syscall.SIGHUP})
		err := m.Close(context.Background(), s.ID())
		m.Wait()
		info := s.Info()
		if err == nil || info.Killed {
			t.Fatalf("Close = %v, killed %v; want an error and not killed", err, info.Killed)
		}
		if want := "survivors: pid 4242 (sleep 1000)"; !strings.Contains(err.Error(), want) {
			t.Errorf("teardown error %q does not name the survivor (%q)", err, want)
		}
		if !slices.Equal(info.Survivors, f.survivors) {
			t.Errorf("Info.Survivors = %v, want %v", info.Survivors, f.survivors)
		}
	})
}
