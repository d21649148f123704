package serve

import (
	"context"
	"log"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/pagetrim"
)

// trimOnAttach lets go of the binary's pages that only one-off work
// touched (package pagetrim) as each client attaches, over any wire:
// by then the server has started, and what it did since the last
// attachment (a config's check, a pane's start, an SSH handshake) is
// behind it. It costs about a millisecond, before the client's first
// frame, and the pages the server goes on using come back in on their
// next touch.
type trimOnAttach struct {
	attach.Attacher
	logger *log.Logger
}

func (t trimOnAttach) Attach(ctx context.Context, st attach.Stream) error {
	trimStartup(t.logger)
	return t.Attacher.Attach(ctx, st)
}

// trimStartup drops the binary's pages not in use; failing, it logs why
// and the process holds them as it did.
func trimStartup(logger *log.Logger) {
	if _, err := pagetrim.Drop(); err != nil {
		logger.Print(err)
	}
}
