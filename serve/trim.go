package serve

import (
	"context"
	"log"
	"sync"
	"time"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/pagetrim"
)

// trimOnAttach lets go of the binary's pages that only one-off work
// touched (package pagetrim) a second into each client's attachment,
// over any wire: by then the server has drawn the client's first frame,
// and what it did since the last attachment (a config's check, the
// panes' starts, an SSH handshake, the attachment's own start) is
// behind it. It costs about a millisecond, and the pages the server
// goes on using come back in on their next touch.
type trimOnAttach struct {
	attach.Attacher
	trim func() // trimStartup with the server's logger
}

// trimAfter is how far into an attachment the server trims: its start
// (a frame of every pane, starts the attach set off) takes
// milliseconds.
const trimAfter = time.Second

func (t trimOnAttach) Attach(ctx context.Context, st attach.Stream) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { t.trimLater(done) })
	defer wg.Wait()
	defer close(done)
	return t.Attacher.Attach(ctx, st)
}

// trimLater trims once the attachment ran trimAfter, unless done closed
// first.
func (t trimOnAttach) trimLater(done <-chan struct{}) {
	timer := time.NewTimer(trimAfter)
	defer timer.Stop()
	select {
	case <-timer.C:
		t.trim()
	case <-done:
	}
}

// trimStartup drops the binary's pages not in use; failing, it logs why
// and the process holds them as it did.
func trimStartup(logger *log.Logger) {
	if _, err := pagetrim.Drop(); err != nil {
		logger.Print(err)
	}
}
