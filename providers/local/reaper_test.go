package local

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// zombieChildren lists the children of this process that are zombies.
func zombieChildren(t *testing.T) []int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var zombies []int
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, f := range strings.Fields(string(b)) {
			var pid int
			fmt.Sscan(f, &pid)
			if st, err := readStat(pid); err == nil && st.state == 'Z' {
				zombies = append(zombies, pid)
			}
		}
	}
	return zombies
}

// TestContract_C13_OrphansReapedWhileRunning: a pane that keeps leaving
// orphans must not pile up zombies of sandmux, and reaping them must not
// steal the exit status of processes sandmux waits for itself: the pane's
// own leader and unrelated os/exec children. Orphans in the pane's session
// are known by it; those in a session of their own by the pane's cgroup,
// or without one by nobody holding a pidfd for them.
func TestContract_C13_OrphansReapedWhileRunning(t *testing.T) {
	for _, tc := range []struct {
		name, orphan string
		noCgroup     bool
	}{
		{"session", "(true &)", true},
		{"own-session/fallback", "(setsid true &)", true},
		{"own-session/cgroup", "(setsid true &)", false},
	} {
		t.Run(tc.name, func(t *testing.T) { testOrphansReaped(t, tc.orphan, tc.noCgroup) })
	}
}

func testOrphansReaped(t *testing.T, orphan string, noCgroup bool) {
	const rounds, perRound = 4, 50
	// slack allows the momentary zombie of the os/exec loop below.
	const slack = 2
	script := fmt.Sprintf(`stty -echo; i=0
while [ $i -lt %d ]; do
  %s
  i=$((i+1))
  if [ $((i %% %d)) = 0 ]; then echo "at $i"; read x; fi
done
exit 7`, rounds*perRound, orphan, perRound)
	pty, err := (&Provider{NoCgroup: noCgroup}).Open(t.Context(), providers.Spec{Command: []string{"sh", "-c", script}, Size: providers.Size{Cols: 80, Rows: 24}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { teardown(t, pty) })
	if h := pty.(*handle); !noCgroup {
		requireCgroup(t, h)
	}
	p := pty

	// Other children of this process, waited for by os/exec, run all along.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var execErrs []string
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := exec.Command("sh", "-c", "exit 3").Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				mu.Lock()
				execErrs = append(execErrs, fmt.Sprint(err))
				mu.Unlock()
			}
		}
	})
	defer func() {
		close(stop)
		wg.Wait()
		if len(execErrs) > 0 {
			t.Errorf("os/exec children lost their status %d times while orphans were reaped: %v", len(execErrs), execErrs[:min(3, len(execErrs))])
		}
	}()

	orphans.mu.Lock()
	pidfds := orphans.pidfds
	orphans.mu.Unlock()
	t.Logf("os/exec holds pidfds for its children: %v", pidfds == 1)
	r := bufio.NewReader(readerFunc(p.Read))
	most := 0
	defer func() { t.Logf("at most %d zombie children at a checkpoint", most) }()
	for round := 1; round <= rounds; round++ {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("round %d: read: %v (output so far %q)", round, err, line)
		}
		if !strings.HasPrefix(line, "at ") {
			t.Fatalf("round %d: unexpected output %q", round, line)
		}
		// The pane waits for us here, making no more orphans: every zombie
		// it left must be reaped now, while it runs. The reaper acts on
		// SIGCHLD; this side has no event to wait on, so it polls.
		most = max(most, len(zombieChildren(t)))
		deadline := time.Now().Add(10 * time.Second)
		for z := zombieChildren(t); len(z) > slack; z = zombieChildren(t) {
			if time.Now().After(deadline) {
				t.Fatalf("after %s: %d zombie children of sandmux 10s later (want at most %d)", strings.TrimSpace(line), len(z), slack)
			}
			time.Sleep(time.Millisecond) // a poll interval, not synchronisation
		}
		if _, err := p.Write([]byte("\r")); err != nil {
			t.Fatal(err)
		}
	}
	st, err := p.Wait(t.Context())
	if err != nil || st.Code != 7 {
		t.Errorf("Wait = %+v, %v; want exit 7", st, err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
