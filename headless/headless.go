// Package headless runs one local command through a session without the
// UI or a server, as `sandmux record` and `sandmux screen` do: a Manager
// with only the local provider, one session whose sinks and screen the
// caller chooses, standard input typed into it (TypeInput) or passed
// through from this terminal with its size followed (Passthrough), and
// the asciicast file a recording writes (Recording).
//
//	Start ─► session (local PTY) ─► Options.Sinks / Options.Screen
//	stdin ─► tty.Pump ─► Session.Write        SIGWINCH ─► tty.SizeFollower ─► Session.Resize, an "r" event
//	Finish: exited or ctx ended ─► Manager.Shutdown ─► Wait (every sink flushed)
//
// It owns that one run; it does not read flags or print (main does),
// nor parse output (the caller's screen or sinks do).
package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
)

// Run is one local command run through a session.
type Run struct {
	m    *session.Manager
	sess *session.Session
}

// Start starts argv in a local PTY of the given size.
func Start(ctx context.Context, name string, argv []string, size providers.Size, opts session.Options) (*Run, error) {
	m := session.NewManager(providers.Table{local.Descriptor.Name: local.New("")})
	sess, err := m.Start(ctx, local.Descriptor.Name, providers.Spec{Name: name, Command: argv, Size: size}, opts)
	if err != nil {
		return nil, err
	}
	return &Run{m: m, sess: sess}, nil
}

// Session is the command's session.
func (r *Run) Session() *session.Session { return r.sess }

// Finish waits until the command exited or ctx ended (a signal), then
// tears down whatever is left (background children, or the whole
// command) and waits until its output is flushed to the sinks.
func (r *Run) Finish(ctx context.Context) error {
	select {
	case <-r.sess.Exited():
	case <-ctx.Done():
	}
	err := r.m.Shutdown(ctx)
	r.m.Wait()
	return err
}

// ExitCode is the command's exit code as a shell gives it, 128+N when
// sandmux itself was stopped by signal N (caught), or 1 when how the
// command ended is not known.
func (r *Run) ExitCode(caught os.Signal) int {
	if sig, ok := caught.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	info := r.sess.Info()
	if !info.ExitKnown {
		return 1
	}
	return info.Exit.ShellCode()
}

// StartError is a headless command's failure to start, said about the
// command alone: the provider's own hint speaks of a config that screen
// and record do not use.
func StartError(argv []string, err error) error {
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		return fmt.Errorf("%s: %w (check its name, or give its path)", argv[0], execErr.Err)
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("%s: %w", argv[0], pathErr.Err)
	}
	return err
}
