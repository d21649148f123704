package local

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// escapeScript starts a setsid child and a double-forked daemon (whose
// parent exits, so sandmux adopts it), prints their pids, and waits.
const escapeScript = `stty -echo
setsid sleep 1000 & echo "esc $!"
(setsid sh -c 'echo "esc $$"; exec sleep 1000' &)
echo started
exec sleep 1000`

// openEscapes opens escapeScript with p and returns the handle and the
// escapees' pids once both have left the pane's session.
func openEscapes(t *testing.T, p *Provider) (*handle, []int) {
	t.Helper()
	pty, err := p.Open(t.Context(), providers.Spec{Command: []string{"sh", "-c", escapeScript}, Size: providers.Size{Cols: 80, Rows: 24}})
	if err != nil {
		t.Fatal(err)
	}
	h := pty.(*handle)
	t.Cleanup(func() { teardown(t, h) })
	var esc []int
	r := bufio.NewReader(readerFunc(h.Read))
	for len(esc) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (so far %q)", err, line)
		}
		var pid int
		if _, err := fmt.Sscanf(line, "esc %d", &pid); err == nil {
			esc = append(esc, pid)
		}
	}
	t.Cleanup(func() {
		for _, pid := range esc {
			_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: a survivor must not outlive the test.
		}
	})
	for _, pid := range esc {
		waitFor(t, fmt.Sprintf("escapee %d in a session of its own", pid), func() bool {
			st, err := readStat(pid)
			return err == nil && st.session == pid
		})
	}
	return h, esc
}

// requireCgroup skips (fails under SANDMUX_REQUIRE_ALL=1) where the pane
// got no cgroup.
func requireCgroup(t *testing.T, h *handle) {
	t.Helper()
	if h.cg != nil {
		return
	}
	_, err := newCgroup()
	if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
		t.Fatalf("cgroup containment required (SANDMUX_REQUIRE_ALL=1) but unavailable: %v", err)
	}
	t.Skipf("SKIPPED: no cgroup for the pane: %v", err)
}

// TestContract_C14_CgroupHoldsEscapees: the pane's cgroup holds the
// processes that left its session, SIGKILL through cgroup.kill ends them,
// GroupAlive sees them, and the cgroup is removed once the pane is gone.
func TestContract_C14_CgroupHoldsEscapees(t *testing.T) {
	h, esc := openEscapes(t, New(""))
	requireCgroup(t, h)
	procs, err := h.cg.procs()
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range esc {
		if !slices.Contains(procs, pid) {
			t.Errorf("escapee %d not in the pane's cgroup %v", pid, procs)
		}
	}
	if used, ok := h.CPUUsage(); !ok || used <= 0 {
		t.Errorf("CPUUsage = %v, %v; want some CPU time", used, ok)
	}
	if err := h.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if st, err := h.Wait(t.Context()); err != nil || st.Signal != syscall.SIGKILL {
		t.Errorf("Wait = %+v, %v; want killed by SIGKILL", st, err)
	}
	waitGroupGone(t, h)
	for _, pid := range esc {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("escapee %d survived (or is an unreaped zombie)", pid)
		}
	}
	if _, err := os.Stat(h.cg.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pane's cgroup %s is left after the pane was verified gone (stat: %v)", h.cg.dir, err)
	}
	if used, ok := h.CPUUsage(); !ok || used <= 0 {
		t.Errorf("CPUUsage after removal = %v, %v; want the last figure", used, ok)
	}
}

// TestContract_C14_FallbackFindsEscapeesByMarker: without a cgroup, the
// processes that left the session are found by the pane's marker, and a
// hang-up (the first teardown signal) reaches them.
func TestContract_C14_FallbackFindsEscapeesByMarker(t *testing.T) {
	h, esc := openEscapes(t, &Provider{NoCgroup: true})
	if h.cg != nil {
		t.Fatal("NoCgroup set, yet the pane got a cgroup")
	}
	for _, pid := range esc {
		// Read once it runs sleep: mid-exec, an environment reads empty.
		waitFor(t, fmt.Sprintf("escapee %d running sleep", pid), func() bool { return strings.HasPrefix(commandOf(pid), "sleep") })
		if !hasEnv(pid, h.marker) {
			t.Errorf("escapee %d does not carry the pane's marker %q", pid, h.marker)
		}
	}
	if err := h.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if st, err := h.Wait(t.Context()); err != nil || st.Signal != syscall.SIGHUP {
		t.Errorf("Wait = %+v, %v; want killed by SIGHUP", st, err)
	}
	waitGroupGone(t, h)
	for _, pid := range esc {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("escapee %d survived the hang-up (or is an unreaped zombie)", pid)
		}
	}
}

// TestContract_C14_FallbackCountsADyingEscapee: a process once found by
// the marker stays the pane's until it is a zombie or gone, even when its
// environment no longer reads: a dying process's reads empty once its
// memory is released, before it is a zombie, and a teardown that took it
// for gone then left its zombie behind (seen under load). The lost read is
// forced by changing the marker looked for.
func TestContract_C14_FallbackCountsADyingEscapee(t *testing.T) {
	h, esc := openEscapes(t, &Provider{NoCgroup: true})
	for _, pid := range esc {
		waitFor(t, fmt.Sprintf("escapee %d running sleep", pid), func() bool { return strings.HasPrefix(commandOf(pid), "sleep") })
	}
	if alive, err := h.containedAlive(); !alive || err != nil {
		t.Fatalf("containedAlive = %v, %v with both escapees running", alive, err)
	}
	h.marker = markerVar + "=unreadable" // as an exiting process's environment reads
	if alive, err := h.containedAlive(); !alive || err != nil {
		t.Errorf("containedAlive = %v, %v once the marker no longer reads; want the escapees still counted", alive, err)
	}
	for _, pid := range esc {
		_ = syscall.Kill(pid, syscall.SIGKILL) // they are sandmux's to reap (subreaper) once the leader goes
	}
	waitFor(t, "the killed escapees no longer counted", func() bool {
		pids, err := h.contained()
		return err == nil && !slices.Contains(pids, esc[0]) && !slices.Contains(pids, esc[1])
	})
}

// The pane's marker is its own: neither sandmux's environment (sandmux run
// inside a pane) nor the spec can set it.
func TestMarkerIsThePanes(t *testing.T) {
	t.Setenv(markerVar, "outer")
	pty := open(t, providers.Spec{Command: []string{"sh", "-c", "env | grep ^" + markerVar + "="}, Env: []string{markerVar + "=spec"}})
	h := pty.(*handle)
	got := strings.TrimSpace(readAll(t, pty))
	if got != h.marker || !strings.HasPrefix(got, markerVar+"=local-") {
		t.Errorf("child sees %q, want only the pane's marker %q", got, h.marker)
	}
}

// waitFor polls cond: what it waits on has no event.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 20000 {
		if cond() {
			return
		}
		sleepPoll()
	}
	t.Fatalf("%s never happened", what)
}

func sleepPoll() { time.Sleep(time.Millisecond) } // a poll interval, not synchronisation

// A pane's process may make cgroups inside the pane's (as root, a nested
// container would): the kill reaches them and the removal takes them too.
func TestContract_C14_NestedCgroupsRemoved(t *testing.T) {
	mount, root, err := cgroup2Mount()
	if err != nil {
		t.Skipf("SKIPPED: %v", err)
	}
	script := `stty -echo
d="$CGMOUNT/${CGROOT#/}$(sed -n 's/^0:://p' /proc/self/cgroup)"
mkdir "$d/inner" || exit 1
sh -c 'echo $$ > "$1/inner/cgroup.procs" && echo "inner $$" && exec sleep 1000' sh "$d" &
exec sleep 1000`
	pty := open(t, providers.Spec{Command: []string{"sh", "-c", script}, Env: []string{"CGMOUNT=" + mount, "CGROOT=" + root}})
	h := pty.(*handle)
	requireCgroup(t, h)
	r := bufio.NewReader(readerFunc(h.Read))
	line, err := r.ReadString('\n')
	var inner int
	if _, serr := fmt.Sscanf(line, "inner %d", &inner); serr != nil {
		t.Fatalf("read %q, %v: the pane could not make a nested cgroup", line, err)
	}
	if cg := procCgroup(inner); cg != h.cg.name+"/inner" {
		t.Fatalf("process %d in cgroup %q, want the nested %q", inner, cg, h.cg.name+"/inner")
	}
	teardown(t, h)
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", inner)); err == nil {
		t.Errorf("process %d in the nested cgroup survived", inner)
	}
	if _, err := os.Stat(h.cg.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pane's cgroup tree %s is left (stat: %v)", h.cg.dir, err)
	}
}

// A pane cgroup left empty by a sandmux that died is removed by the next
// one; a populated one, or a live sandmux's, is left alone.
func TestStaleCgroupsSwept(t *testing.T) {
	parent, err := cgroupParent()
	if err != nil {
		t.Skipf("SKIPPED: %v", err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(parent, fmt.Sprintf("sandmux-%d-1", dead.Process.Pid))
	live := filepath.Join(parent, fmt.Sprintf("sandmux-%d-1", os.Getppid()))
	for _, d := range []string{stale, live} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("SKIPPED: cannot make a cgroup here: %v", err)
		}
		t.Cleanup(func() { _ = os.Remove(d) })
	}
	sweepStale(parent)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale cgroup %s not swept (stat: %v)", stale, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live sandmux's cgroup %s was swept: %v", live, err)
	}
}

// hasEnv reports whether pid's environment holds the marker entry kv.
func hasEnv(pid int, kv string) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && slices.Contains(markersOf(env), kv)
}
