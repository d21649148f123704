// Package play plays an asciicast v2 recording on this terminal at the
// recording's pace, as `sandmux play` does: pauses shortened by a speed
// factor and an idle limit, and space, . and q as its keys.
//
// It owns the player and its keys, found among whatever else the
// terminal sends back (answers to the cast's queries, mouse reports,
// pastes). The cast's output is the terminal stream it recorded and is
// written as it is, for the terminal to interpret; what play says about
// the cast goes through termsafe. It does not parse the cast (package
// asciicast does) nor read flags (main does).
package play

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sandmux/sandmux/asciicast"
)

// player writes a cast's output to a terminal at the cast's pace.
//
//	Decoder.Next ─► an 'o' event ─► await its gap (keys: pause, step, quit) ─► out
//	               'r', 'm' ─► remembered for the notes after the end
type player struct {
	dec   *asciicast.Decoder
	out   *bufio.Writer
	speed float64 // 0: no pauses
	idle  float64 // the longest pause, seconds; 0: none
	keys  <-chan playKey

	paused bool
	last   float64 // the time of the last output event played
	cols   int     // the size the cast draws for now
	rows   int
	marker string // the label of the last marker passed
	marked bool
}

func newPlayer(dec *asciicast.Decoder, out io.Writer, speed, idle float64, keys <-chan playKey) *player {
	return &player{
		dec: dec, out: bufio.NewWriterSize(out, 32<<10), speed: speed, idle: idle, keys: keys,
		cols: dec.Header.Width, rows: dec.Header.Height,
	}
}

// play plays until the cast ends, a key quits, or ctx ends. quit says it
// stopped before the end; the output is flushed either way.
func (p *player) play(ctx context.Context) (quit bool, err error) {
	for {
		e, err := p.dec.Next()
		if err == io.EOF {
			return false, p.flush()
		}
		if err != nil {
			_ = p.flush() // Best effort: the cast's error is the one to report.
			return false, err
		}
		switch e.Kind {
		case asciicast.KindResize:
			if c, r, ok := e.Size(); ok {
				p.cols, p.rows = c, r
			}
			continue
		case asciicast.KindMarker:
			p.marker, p.marked = e.Data, true
			continue
		case asciicast.KindOutput:
		default:
			continue // input, and kinds this player does not know
		}
		gap := asciicast.Gap(p.last, e.Time, p.idle, p.speed)
		if quit, err := p.await(ctx, gap); quit || err != nil {
			return quit, err
		}
		p.last = e.Time
		if _, err := p.out.WriteString(e.Data); err != nil {
			return false, fmt.Errorf("write to the terminal: %w", err)
		}
	}
}

// await lets gap pass before the next event, the time paused not
// counted; a step while paused lets the event through at once.
func (p *player) await(ctx context.Context, gap time.Duration) (quit bool, err error) {
	if gap > 0 || p.paused {
		if err := p.flush(); err != nil {
			return false, err
		}
	}
	for {
		if p.paused {
			select {
			case k := <-p.keys:
				switch k {
				case keyPause:
					p.paused = false
				case keyStep:
					return false, nil
				case keyQuit:
					return true, p.flush()
				}
			case <-ctx.Done():
				return true, nil
			}
			continue
		}
		if gap <= 0 {
			// Even with no pause, a key or a signal is seen between events.
			select {
			case k := <-p.keys:
				quit, err := p.key(k)
				if quit || err != nil || !p.paused {
					return quit, err
				}
				continue // paused before this event
			case <-ctx.Done():
				return true, nil
			default:
				return false, nil
			}
		}
		start := time.Now()
		timer := time.NewTimer(gap)
		select {
		case <-timer.C:
			return false, nil
		case k := <-p.keys:
			timer.Stop()
			gap -= time.Since(start)
			if quit, err := p.key(k); quit || err != nil {
				return quit, err
			}
		case <-ctx.Done():
			timer.Stop()
			return true, nil
		}
	}
}

// key acts on a key while playing: pause, or quit (a step plays on).
func (p *player) key(k playKey) (quit bool, err error) {
	switch k {
	case keyPause:
		p.paused = true
		return false, p.flush()
	case keyQuit:
		return true, nil
	}
	return false, nil
}

func (p *player) flush() error {
	if err := p.out.Flush(); err != nil {
		return fmt.Errorf("write to the terminal: %w", err)
	}
	return nil
}
