package play

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/tty"
)

// Options are how a cast plays.
type Options struct {
	Speed float64 // 0: no pauses
	Idle  float64 // the longest pause, seconds; 0: none; below 0: the cast's own idle_time_limit
}

// Cast is a recording opened to play.
type Cast struct {
	path string
	f    *os.File
	dec  *asciicast.Decoder
}

// Open opens a recording and reads its header. A FIFO or device would
// block or never end: a recording is a regular file.
func Open(path string) (*Cast, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w (give the path of an asciicast v2 recording)", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (give the path of an asciicast v2 recording)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (give the path of an asciicast v2 recording)", err)
	}
	dec, err := asciicast.NewDecoder(f)
	if err != nil {
		_ = f.Close() // Best effort: the header error is the one to report.
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Cast{path: path, f: f, dec: dec}, nil
}

// Close closes the recording's file.
func (c *Cast) Close() error { return c.f.Close() }

// Play plays the cast on out, the terminal, with in's keys when in is a
// terminal: it is put in raw mode for them (and so that the stream
// reaches the terminal unchanged), and restored on every way out, a
// panic included. The terminal's input modes that the cast may have set
// (mouse, bracketed paste, cursor keys) are reset at the end too; the
// screen is left as the cast drew it. What play says about the cast goes
// to errOut through termsafe, after the end: where a quit stopped, and
// when the size the cast ended at is not this terminal's (a resize in
// the cast cannot resize it, and lines may have wrapped).
//
// It returns when the cast ends, a key quits, or ctx ends; an error has
// been said on errOut already, unless ctx ended (a signal, which the
// caller reports by its exit code).
func (c *Cast) Play(ctx context.Context, o Options, in *os.File, out, errOut io.Writer) error {
	idle := c.dec.Header.IdleTimeLimit
	if o.Idle >= 0 {
		idle = o.Idle
	}
	var keyCh <-chan playKey
	raw := tty.IsTerminal(in)
	if raw {
		restore, err := tty.MakeRaw(in)
		if err != nil {
			termsafe.Fprintln(errOut, "sandmux play:", err)
			return err
		}
		// Deferred, so a panic restores the terminal as well.
		defer func() { _ = restore() }() // Best effort: nothing better to do on exit.
		if keys, err := readKeys(in); err != nil {
			termsafe.Fprintln(errOut, "sandmux play: reading keys:", err)
		} else {
			keyCh = keys.keys
			defer keys.stop()
		}
	}
	p := newPlayer(c.dec, out, o.Speed, idle, keyCh)
	quit, err := p.play(ctx)
	notes := noteWriter{w: errOut, eol: "\n"}
	if raw {
		notes.eol = "\r\n" // the terminal is still raw: a newline does not return
	}
	if isTerminal(out) {
		_, _ = io.WriteString(out, ResetInputModes) // Best effort: the terminal may be gone.
		notes.lead = notes.eol                      // the cast's last line may not have ended
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		notes.say("sandmux play: %s: %v", c.path, err)
		return err
	}
	playNotes(notes, out, p, quit)
	return nil
}

// noteWriter writes what play says after the cast, escaped, each line
// ended as the terminal's mode needs.
type noteWriter struct {
	w         io.Writer
	lead, eol string
}

func (n *noteWriter) say(format string, args ...any) {
	_, _ = io.WriteString(n.w, n.lead) // Best effort, as the rest of the note.
	n.lead = ""
	termsafe.Fprintf(n.w, format, args...)
	_, _ = io.WriteString(n.w, n.eol)
}

// ResetInputModes turns off what a cast may have turned on that changes
// what the keyboard and mouse send, and shows the cursor; it leaves the
// screen as the cast drew it (the alternate screen included).
const ResetInputModes = "\x1b[0m\x1b[?25h\x1b[?1l\x1b>\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l"

// playNotes says where a quit stopped, and when the cast ended at a size
// this terminal is not.
func playNotes(n noteWriter, out io.Writer, p *player, quit bool) {
	if f, ok := out.(*os.File); ok {
		if w, h, ok := tty.Size(f); ok && (w != p.cols || h != p.rows) {
			n.say("sandmux play: the recording ended at %dx%d and this terminal is %dx%d, so lines may have wrapped (play it again in a %dx%d terminal)", p.cols, p.rows, w, h, p.cols, p.rows)
		}
	}
	if !quit {
		return
	}
	at := time.Duration(p.last * float64(time.Second)).Round(time.Second)
	if p.marked {
		n.say("sandmux play: stopped at %s (after the marker %q)", at, p.marker)
	} else {
		n.say("sandmux play: stopped at %s", at)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && tty.IsTerminal(f)
}
