package ssh

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// TestSweepsShareOneShell: on a host where every new session is slow to
// start (sshd runs every command after a 3 s sleep, as a conda or pyenv init on
// a loaded host does), the pane's signals and checks are answered within
// the default graces (2 s a stage): the sweeps run in one shell opened
// with the pane, not in a new session each. The startup file counts the
// sessions: the pane's and the shell's. The old code opened one per sweep,
// each slower than its stage, and reported the processes not verified
// gone.
func TestSweepsShareOneShell(t *testing.T) {
	count := filepath.Join(t.TempDir(), "sessions")
	// Root logins are refused signal requests: every signal is a sweep.
	s := startServer(t, `ForceCommand echo session >>`+count+`; sleep 3; eval "$SSH_ORIGINAL_COMMAND"`)
	var once sync.Once
	ready := make(chan struct{})
	setHook(t, func(step string) {
		if step == "sweep shell ready" {
			once.Do(func() { close(ready) })
		}
	})
	m := session.NewManager(providers.Table{"ssh": New(nil)})
	sink := &outputSink{changed: make(chan struct{}, 1)}
	sess, err := m.Start(t.Context(), "ssh", providers.Spec{
		Name:    "slow-rc",
		Command: []string{"sh", "-c", "echo up.; sleep 1000 & exec sleep 1000"},
		Size:    providers.Size{Cols: 80, Rows: 24},
		Options: s.options(t, ""),
	}, session.Options{Sinks: []session.Sink{sink}})
	if err != nil {
		t.Fatal(err)
	}
	// Before setHook's cleanup: the handle's goroutines call the hook.
	t.Cleanup(func() { _ = m.Close(context.Background(), sess.ID()); m.Wait() })
	sink.waitMatch(t, regexp.MustCompile(`up\.`))
	select {
	case <-ready:
	case <-time.After(60 * time.Second): // a stuck test, not a timing assertion
		t.Fatal("the sweep shell never came up")
	}
	if err := m.Close(context.Background(), sess.ID()); err != nil {
		t.Errorf("Close = %v, want the pane torn down and verified gone", err)
	}
	m.Wait()
	if info := sess.Info(); !info.Killed {
		t.Errorf("info = %+v, want its processes verified gone", info)
	}
	n := strings.Count(readFile(t, count), "session")
	if n != 2 {
		t.Errorf("the host started %d sessions, want 2 (the pane's and the sweep shell's); is root's shell bash?", n)
	}
}
