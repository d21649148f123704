package sshattach

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/attach"
)

// floodAttacher draws without end, as a UI over a flooding pane does,
// and reports the write that failed.
type floodAttacher struct {
	started chan struct{}
	failed  chan error
}

func (a *floodAttacher) Attach(ctx context.Context, st attach.Stream) error {
	close(a.started)
	line := []byte(fmt.Sprintf("%0999d\r\n", 0))
	for ctx.Err() == nil {
		if _, err := st.Write(line); err != nil {
			a.failed <- err
			break
		}
	}
	_ = st.Finish(attach.Exit{Code: 1, Summary: "flooded"}) // Best effort: it was cut off.
	return nil
}

// The attack of issue 20: an OpenSSH client that is alive (it answers
// keepalives) but never reads what is drawn. Its writes are cut off once
// they took no output for WriteTimeout, instead of holding the writer,
// and with it a quit, for ever.
func TestContract_A11_StalledClientCutOff(t *testing.T) {
	requireSSH(t)
	fa := &floodAttacher{started: make(chan struct{}), failed: make(chan error, 1)}
	f := startFixtureWith(t, func(c *Config) { c.WriteTimeout = 200 * time.Millisecond }, fa)
	// ssh with a terminal forced, its input and output pipes that nobody
	// reads or writes: it stays connected, its window fills, and it
	// stops taking output.
	ssh := fmt.Sprintf("%s -F /dev/null -tt -i %s -p %d -l tester -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none -o LogLevel=ERROR -o ServerAliveInterval=1 127.0.0.1",
		sshPath, f.rw, f.port())
	cmd := exec.Command("sh", "-c", "sleep 100000 | "+ssh+" | sleep 100000")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Best effort: the whole pipeline.
		_ = cmd.Wait()
	}()
	select {
	case <-fa.started:
	case <-time.After(waitBound):
		t.Fatalf("the stalled client never attached; log:\n%s", f.log)
	}
	select {
	case err := <-fa.failed:
		if !errors.Is(err, errCut) {
			t.Errorf("the stalled client's write failed with %v, want it cut off", err)
		}
	case <-time.After(waitBound):
		t.Fatalf("a write to a client that reads nothing did not fail within %v", waitBound)
	}
}
