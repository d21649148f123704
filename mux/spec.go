package mux

import (
	"context"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// PaneSpec is one pane to open: what to start and how.
type PaneSpec struct {
	// Name is shown in the title line.
	Name string
	// Provider names the provider that opens the PTY.
	Provider string
	// Spec is what the provider opens; its Size is replaced by the pane's.
	Spec providers.Spec
	// Options are the session's options; the UI adds its screen as a sink.
	Options session.Options
	// Prepare, when set, runs in a command before each start (create the
	// workspace, restore a snapshot). Its error fails the pane; its notice
	// (say, a refused restore) is shown in the pane's title.
	Prepare func(ctx context.Context) (notice string, err error)
	// Env, when set, adds to the environment of each start, given the
	// pane's stable id (for SANDMUX_PANE).
	Env func(id string) []string
	// StartHint is added to a failed start's error: what to check.
	StartHint string
	// Started, when set, is told once how the first start ended (nil:
	// it runs), from Update: ctl run and start answer with it.
	Started func(error)
}
