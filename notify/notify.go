// Package notify runs the user's notify command when a session needs
// them: one process per notification, told what it is about through its
// environment, in the background, killed (with its process group) once
// its timeout passes, at most a few at once. It owns those processes:
// Close waits for every one. Run never blocks its caller, the UI's loop.
package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// MaxRunning bounds the commands running at once; a notification beyond
// it is dropped, and logged, rather than queued behind a command that
// hangs.
const MaxRunning = 4

// maxOutput bounds what of a failed command's output is logged, in bytes.
const maxOutput = 512

// Runner runs one command line for each notification.
type Runner struct {
	argv    []string
	timeout time.Duration
	logf    func(format string, args ...any)
	ctx     context.Context
	slots   chan struct{}
	wg      sync.WaitGroup
}

// New returns a runner of argv, each run bounded by timeout; logf is told
// of every failure (it must be safe for concurrent use). ctx ends them
// all early (the server stops).
func New(ctx context.Context, argv []string, timeout time.Duration, logf func(string, ...any)) *Runner {
	return &Runner{argv: argv, timeout: timeout, logf: logf, ctx: ctx, slots: make(chan struct{}, MaxRunning)}
}

// Run starts the command with env (KEY=VALUE) added to sandmux's own
// environment, and returns at once.
func (r *Runner) Run(env []string) {
	select {
	case r.slots <- struct{}{}:
	default:
		r.logf("notify_command: %d still running: this notification is dropped (make the command quicker, or lower notify_timeout)", MaxRunning)
		return
	}
	r.wg.Go(func() {
		defer func() { <-r.slots }()
		if err := r.run(env); err != nil {
			r.logf("notify_command: %v", err)
		}
	})
}

func (r *Runner) run(env []string) error {
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.argv[0], r.argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The whole group goes, so a shell's children do not outlive it.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second // a child that kept the output open
	var out bytes.Buffer
	cmd.Stdout = &limited{buf: &out}
	cmd.Stderr = cmd.Stdout
	err := cmd.Run()
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s ran longer than %s and was killed (make it quicker, or raise notify_timeout)", r.argv[0], r.timeout)
	}
	return fmt.Errorf("%s: %w: %q", r.argv[0], err, out.String())
}

// Close waits for the commands still running (each within its timeout).
func (r *Runner) Close() { r.wg.Wait() }

// limited keeps the first maxOutput bytes written to it.
type limited struct{ buf *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxOutput - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
