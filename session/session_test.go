package session

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
)

// watchSink collects output and lets a test wait for a substring.
type watchSink struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{}
}

func newWatchSink() *watchSink { return &watchSink{changed: make(chan struct{}, 1)} }

func (w *watchSink) Output(text string) {
	w.mu.Lock()
	w.text.WriteString(text)
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *watchSink) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// waitFor waits until the output contains want, failing after a generous
// deadline (a stuck test, not a timing assertion).
func (w *watchSink) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if s := w.String(); strings.Contains(s, want) {
			return s
		}
		select {
		case <-w.changed:
		case <-deadline:
			t.Fatalf("output never contained %q; got %q", want, w.String())
		}
	}
}

func localManager() *Manager {
	return NewManager(providers.Table{"local": local.New("/bin/sh")})
}

var realOpts = Options{StopGrace: 300 * time.Millisecond, KillGrace: 300 * time.Millisecond, DrainGrace: 200 * time.Millisecond}

func startLocal(t *testing.T, m *Manager, sink Sink, argv ...string) *Session {
	t.Helper()
	opts := realOpts
	if sink != nil {
		opts.Sinks = []Sink{sink}
	}
	s, err := m.Start(t.Context(), "local", providers.Spec{Name: t.Name(), Command: argv, Size: providers.Size{Cols: 80, Rows: 24}}, opts)
	if err != nil {
		t.Fatalf("Start %v: %v", argv, err)
	}
	return s
}

func pidGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

func TestRealInputReachesChild(t *testing.T) {
	m := localManager()
	defer m.Wait()
	w := newWatchSink()
	s := startLocal(t, m, w, "sh")
	if err := s.Write([]byte("echo in-$((6*7))\r")); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "in-42")
	if err := s.Write([]byte("exit 5\r")); err != nil {
		t.Fatal(err)
	}
	<-s.Exited()
	if info := s.Info(); info.State != Exited || info.Exit.Code != 5 {
		t.Errorf("info = %+v, want exited 5", info)
	}
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Errorf("Close after exit: %v", err)
	}
	if err := s.Write([]byte("x")); err != ErrInputClosed {
		t.Errorf("Write after close = %v, want ErrInputClosed", err)
	}
}

// A child that ignores SIGHUP is ended by SIGTERM after the stop grace.
func TestRealEscalationToSIGTERM(t *testing.T) {
	m := localManager()
	defer m.Wait()
	w := newWatchSink()
	s := startLocal(t, m, w, "sh", "-c", `trap "" HUP; echo ready; exec sleep 1000`)
	w.waitFor(t, "ready")
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if info.State != Closed || !info.Killed || info.Exit.Signal != syscall.SIGTERM {
		t.Errorf("info = %+v, want closed, killed, by SIGTERM", info)
	}
}

// A child that ignores SIGHUP and SIGTERM is ended by SIGKILL.
func TestRealEscalationToSIGKILL(t *testing.T) {
	m := localManager()
	defer m.Wait()
	w := newWatchSink()
	s := startLocal(t, m, w, "sh", "-c", `trap "" HUP TERM; echo ready; exec sleep 1000`)
	w.waitFor(t, "ready")
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if info := s.Info(); !info.Killed || info.Exit.Signal != syscall.SIGKILL {
		t.Errorf("info = %+v, want killed by SIGKILL", info)
	}
}

// Kill now reaches the whole group: a background child dies too, and is
// reaped (no zombie keeps its pid).
func TestRealKillReachesBackgroundChildren(t *testing.T) {
	m := localManager()
	defer m.Wait()
	w := newWatchSink()
	s := startLocal(t, m, w, "sh", "-c", `sleep 1000 & echo "bg=$!"; sleep 1000`)
	out := w.waitFor(t, "bg=")
	var bg int
	fmt.Sscanf(out[strings.Index(out, "bg="):], "bg=%d", &bg)
	if err := m.Kill(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if !s.Info().Killed || !pidGone(bg) {
		t.Errorf("killed %v, background pid %d gone %v", s.Info().Killed, bg, pidGone(bg))
	}
}

// The command exits while a background child that ignores the kernel's
// hangup keeps the PTY open: after the drain grace the group is killed, the
// output closes, and the session is exited with the command's code.
func TestRealDrainGraceAfterExit(t *testing.T) {
	m := localManager()
	defer m.Wait()
	w := newWatchSink()
	s := startLocal(t, m, w, "sh", "-c", `trap "" HUP; sleep 1000 & echo "bg=$!"; exit 4`)
	t0 := time.Now()
	<-s.Exited()
	// A lower bound only, which cannot flake: a timer never fires early.
	if waited := time.Since(t0); waited < realOpts.DrainGrace-50*time.Millisecond {
		t.Errorf("exited after %v, before the drain grace %v: the child did not hold the PTY", waited, realOpts.DrainGrace)
	}
	out := w.String()
	var bg int
	fmt.Sscanf(out[strings.Index(out, "bg="):], "bg=%d", &bg)
	if info := s.Info(); info.Exit.Code != 4 {
		t.Errorf("exit = %+v, want 4", info.Exit)
	}
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if !pidGone(bg) {
		t.Errorf("background pid %d survived", bg)
	}
}

func countFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// children lists the pids whose parent is this process (zombies included).
func children(t *testing.T) []int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	var kids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state ppid ...
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == self {
			kids = append(kids, pid)
		}
	}
	return kids
}

// TestLeak200StartKillCycles: 200 start/kill cycles of a shell with a
// background child leave no process, no descriptor and no goroutine
// (goleak checks goroutines when the package's tests end).
func TestLeak200StartKillCycles(t *testing.T) {
	m := localManager()
	defer m.Wait()
	// One cycle first so lazily opened runtime descriptors are counted.
	s := startLocal(t, m, nil, "true")
	_ = m.Kill(context.Background(), s.ID())
	fds := countFDs(t)
	for i := range 200 {
		s := startLocal(t, m, nil, "sh", "-c", "sleep 100 & sleep 100")
		if err := m.Kill(context.Background(), s.ID()); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if !s.Info().Killed {
			t.Fatalf("cycle %d: not verified killed", i)
		}
	}
	m.Wait()
	if got := countFDs(t); got != fds {
		t.Errorf("descriptors: %d before, %d after 200 cycles", fds, got)
	}
	if kids := children(t); len(kids) != 0 {
		t.Errorf("child processes left (zombies included): %v", kids)
	}
	if n := len(m.List()); n != 0 {
		t.Errorf("%d sessions still registered", n)
	}
}
