package ssh

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// A pane whose only process carries no marker when Signal's sweep looks
// (as a process in the midst of exec does) is swept again, and the
// signal reaches it once it shows one. The gate: the pane's process
// drops its environment and takes the marker back only when the test,
// told that a sweep found nothing, lets it.
func TestSignalSweepsAgainWhenNoneCarriesTheMarker(t *testing.T) {
	if os.Geteuid() != 0 {
		// sshd forwards a non-root login's signal itself: no sweep runs.
		t.Skip("SKIPPING: only a root login's signals go through the sweep")
	}
	s := startServer(t)
	goFile := filepath.Join(t.TempDir(), "go")
	inner := fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.01; done; exec env %s="$M" sleep 1000`, goFile, markerVar)
	script := fmt.Sprintf(`echo ready $$.; exec env -i PATH="$PATH" M="$%s" /bin/sh -c '%s'`, markerVar, inner)
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", script}})
	environ := "/proc/" + strconv.Itoa(readyPid(t, watch(t, p))) + "/environ"
	waitProc(t, "the pane's process without its marker", func() bool {
		env, _ := os.ReadFile(environ)
		return bytes.HasPrefix(env, []byte("PATH=")) && !bytes.Contains(env, []byte(markerVar+"="))
	})
	h := p.(*handle)
	nones := 0
	h.sweptNone = func() {
		nones++
		if nones > 1 {
			return
		}
		if err := os.WriteFile(goFile, nil, 0o600); err != nil {
			t.Error(err)
		}
		waitProc(t, "the pane's process with its marker back", func() bool {
			env, _ := os.ReadFile(environ)
			return bytes.Contains(env, []byte(markerVar+"="+h.marker))
		})
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("Signal(SIGTERM): %v", err)
	}
	if st, err := wait(t, p); err != nil || st.Signal != syscall.SIGTERM {
		t.Errorf("after Signal(SIGTERM): Wait = %+v, %v", st, err)
	}
	if nones != 1 {
		t.Errorf("sweeps that found nothing: %d, want 1 (the gate's)", nones)
	}
}

// After the session ended, a process of the pane's that carries no
// marker when GroupAlive's sweep looks is looked for again before the
// pane is taken for gone, which is final. The same gate: an escaped
// process without its environment, its marker back once a sweep found
// nothing.
func TestGroupAliveSweepsAgainBeforeGone(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	goFile, pidFile := filepath.Join(dir, "go"), filepath.Join(dir, "pid")
	t.Cleanup(func() { // whatever became of the test, the escapee goes
		_ = os.WriteFile(goFile, nil, 0o600)
		if pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	inner := fmt.Sprintf(`trap "" HUP; echo $$ > %s; while [ ! -e %s ]; do sleep 0.01; done; exec env %s="$M" sleep 1000`, pidFile, goFile, markerVar)
	script := fmt.Sprintf(`setsid env -i PATH="$PATH" M="$%s" /bin/sh -c '%s' </dev/null >/dev/null 2>&1 &
while [ ! -s %s ]; do sleep 0.01; done; echo escaped`, markerVar, inner, pidFile)
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", script}})
	tm := watch(t, p)
	tm.waitFor(t, "escaped")
	if st, err := wait(t, p); err != nil || st.Code != 0 {
		t.Fatalf("the pane's shell: Wait = %+v, %v", st, err)
	}
	environ := "/proc/" + strings.TrimSpace(readFile(t, pidFile)) + "/environ"
	h := p.(*handle)
	nones := 0
	h.sweptNone = func() {
		nones++
		if err := os.WriteFile(goFile, nil, 0o600); err != nil {
			t.Error(err)
		}
		waitProc(t, "the escaped process with its marker back", func() bool {
			env, _ := os.ReadFile(environ)
			return bytes.Contains(env, []byte(markerVar+"="+h.marker))
		})
	}
	if alive, err := p.GroupAlive(); !alive || err != nil {
		t.Errorf("GroupAlive = %v, %v with the escaped process running", alive, err)
	}
	if nones != 1 {
		t.Errorf("sweeps that found nothing: %d, want 1 (the gate's)", nones)
	}
}

// waitProc polls what /proc shows of a process: it changes with no event
// to wait on.
func waitProc(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 20s", what)
		}
		time.Sleep(10 * time.Millisecond) // a poll interval
	}
}
