package main

import (
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// resizeFollower resizes a recorded command's PTY when the user's terminal
// changes size, and records each change as an asciicast "r" event, so the
// recording plays back at the size the command drew for.
type resizeFollower struct {
	ch   chan os.Signal
	done chan struct{}
	wg   sync.WaitGroup
}

func followResizes(in *os.File, sess *session.Session, cast *asciicast.Writer) *resizeFollower {
	f := &resizeFollower{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(f.ch, syscall.SIGWINCH)
	start := time.Now()
	f.wg.Go(func() {
		for {
			select {
			case <-f.ch:
				w, h, err := term.GetSize(in.Fd())
				if err != nil || w <= 0 || h <= 0 {
					continue // A size we cannot read is no size to record.
				}
				if sess.Resize(providers.Size{Cols: uint16(w), Rows: uint16(h)}) != nil {
					continue // The command is closing: nothing to draw for.
				}
				cast.WriteEvent(time.Since(start), "r", strconv.Itoa(w)+"x"+strconv.Itoa(h))
			case <-f.done:
				return
			}
		}
	})
	return f
}

// stop stops following and waits for the follower; nil is a no-op.
func (f *resizeFollower) stop() {
	if f == nil {
		return
	}
	signal.Stop(f.ch)
	close(f.done)
	f.wg.Wait()
}
