package headless

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/tty"
)

// Passing is this terminal passed through to a recorded session: raw
// mode, its keystrokes typed into the session, and, when followed, its
// size changes given to the session's PTY and recorded as asciicast "r"
// events, so that the recording plays back at the size the command drew
// for.
type Passing struct {
	restore func() error
	pump    *tty.Pump
	sizes   *tty.SizeFollower // nil when the size is fixed
}

// Passthrough passes in through to sess until Stop. With follow, in's
// size is followed from size, the size sess started at; cast, when not
// nil, records each change at its time since start.
func Passthrough(in *os.File, sess *session.Session, size providers.Size, follow bool, cast *asciicast.Writer, start time.Time) (*Passing, error) {
	restore, err := tty.MakeRaw(in)
	if err != nil {
		return nil, err
	}
	p := &Passing{restore: restore}
	p.pump = tty.StartPump(in, 4096, func(b []byte) error {
		_ = sess.Write(b) // Best effort: input to a closing session is moot.
		return nil
	}, nil)
	if !p.pump.Cancelable() {
		p.Stop()
		return nil, fmt.Errorf("read the terminal: its reads cannot be stopped")
	}
	if follow {
		p.sizes = tty.FollowSize(in, int(size.Cols), int(size.Rows), nil, func(w, h int) {
			if sess.Resize(providers.Size{Cols: uint16(w), Rows: uint16(h)}) != nil {
				return // The command is closing: nothing to draw for.
			}
			if cast != nil {
				cast.WriteEvent(time.Since(start), "r", strconv.Itoa(w)+"x"+strconv.Itoa(h))
			}
		})
	}
	return p, nil
}

// Stop stops following and reading, waits for both, and restores the
// terminal; a nil Passing is a no-op.
func (p *Passing) Stop() {
	if p == nil {
		return
	}
	p.sizes.Stop()
	p.pump.Stop()
	_ = p.restore() // Best effort: nothing better to do on exit.
}
