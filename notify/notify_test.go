package notify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Each Run runs the command once, with the notification in its environment.
func TestRunPassesTheEnvironment(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var l logs
	r := New(t.Context(), []string{"sh", "-c", `printf '%s|%s\n' "$SANDMUX_NAME" "$SANDMUX_STATE" >>"$OUT"`}, 10*time.Second, l.logf)
	t.Setenv("OUT", out)
	r.Run([]string{"SANDMUX_NAME=web", "SANDMUX_STATE=waiting"})
	r.Run([]string{"SANDMUX_NAME=db", "SANDMUX_STATE=failed"})
	r.Close()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(string(data), "web|waiting") || !strings.Contains(string(data), "db|failed") {
		t.Fatalf("the command wrote %q", data)
	}
	if l.all() != "" {
		t.Errorf("logged %q", l.all())
	}
}

// A command past its timeout is killed with its children, and logged; a
// failing one is logged with its output; Close returns once they went.
func TestContract_N4_TimeoutKillsTheGroup(t *testing.T) {
	var l logs
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := New(t.Context(), []string{"sh", "-c", `sleep 60 & echo $! >` + pidFile + `; wait`}, 300*time.Millisecond, l.logf)
	r.Run(nil)
	r.Close()
	if !strings.Contains(l.all(), "ran longer than 300ms and was killed") {
		t.Errorf("log %q", l.all())
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// The kill is sent before Close returns, but a loaded machine may not
	// have run the child's death yet: it must be gone (or a zombie) soon
	// after, and the bound only ends a failure.
	stat := "/proc/" + strings.TrimSpace(string(data)) + "/stat"
	for deadline := time.Now().Add(10 * time.Second); ; {
		st, err := os.ReadFile(stat)
		if err != nil || strings.Contains(string(st), ") Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command's child outlived its timeout by 10s: %s", st)
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: a death announces itself only to its parent
	}

	var l2 logs
	r = New(t.Context(), []string{"sh", "-c", "echo no such mailbox >&2; exit 3"}, 10*time.Second, l2.logf)
	r.Run(nil)
	r.Close()
	if got := l2.all(); !strings.Contains(got, "exit status 3") || !strings.Contains(got, "no such mailbox") {
		t.Errorf("log %q", got)
	}
}

// Beyond MaxRunning, a notification is dropped and logged, not queued.
func TestBoundedRunning(t *testing.T) {
	var l logs
	ctx, cancel := context.WithCancel(t.Context())
	dir := t.TempDir()
	r := New(ctx, []string{"sh", "-c", `touch "$DIR/$N"; sleep 60`}, time.Minute, l.logf)
	t.Setenv("DIR", dir)
	for i := range MaxRunning + 2 {
		r.Run([]string{fmt.Sprintf("N=%d", i)})
	}
	cancel() // the server stops: every command goes
	r.Close()
	if n := strings.Count(l.all(), "this notification is dropped"); n != 2 {
		t.Errorf("%d dropped, want 2: %q", n, l.all())
	}
}
