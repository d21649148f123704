package main

import (
	"context"
	"os"
	"syscall"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
)

// headless is one local command run through a session without the TUI, as
// sandmux record and sandmux screen do.
type headless struct {
	m    *session.Manager
	sess *session.Session
}

// startHeadless starts argv in a local PTY of the given size.
func startHeadless(ctx context.Context, name string, argv []string, size providers.Size, opts session.Options) (*headless, error) {
	m := session.NewManager(providers.Table{local.Descriptor.Name: local.New("")})
	sess, err := m.Start(ctx, local.Descriptor.Name, providers.Spec{Name: name, Command: argv, Size: size}, opts)
	if err != nil {
		return nil, err
	}
	return &headless{m: m, sess: sess}, nil
}

// finish waits until the command exited or ctx ended (a signal), then
// tears down whatever is left (background children, or the whole command)
// and waits until its output is flushed to the sinks.
func (h *headless) finish(ctx context.Context) error {
	select {
	case <-h.sess.Exited():
	case <-ctx.Done():
	}
	err := h.m.Shutdown(ctx)
	h.m.Wait()
	return err
}

// exitCode is the command's exit code as a shell gives it, or 128+N when
// sandmux itself was stopped by signal N.
func (h *headless) exitCode(caught os.Signal) int {
	if sig, ok := caught.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	info := h.sess.Info()
	if !info.ExitKnown {
		return exitFailure
	}
	return info.Exit.ShellCode()
}
