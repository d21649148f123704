package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/termsafe"
)

const playUsage = "sandmux play [--speed X] [--idle-limit S] FILE.cast"

// maxPlaySpeed bounds --speed: past it every pause is below what a
// terminal shows anyway.
const maxPlaySpeed = 1000

// runPlay plays an asciicast v2 recording on this terminal. The cast's
// output is the terminal stream it recorded and is written as it is, for
// the terminal to interpret; what play says about the cast goes through
// termsafe. With standard input a terminal, it is put in raw mode for the
// keys (and so that the stream reaches the terminal unchanged), and
// restored on every way out: the end, q, an error, a panic, SIGINT,
// SIGTERM or SIGHUP. The terminal's input modes that the cast may have set
// (mouse, bracketed paste, cursor keys) are reset at the end too; the
// screen is left as the cast drew it.
//
// A resize in the cast cannot resize this terminal: play draws on as it
// is, and after the end says once, on standard error, when the size the
// cast ended at is not this terminal's (the lines may have wrapped).
func runPlay(ctx context.Context, args []string, s stdio) int {
	opts, code := parsePlayArgs(args, s)
	if code >= 0 {
		return code
	}
	f, dec, err := openCast(opts.file)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux play:", err)
		return exitFailure
	}
	defer f.Close()
	idle := dec.Header.IdleTimeLimit
	if opts.idle >= 0 {
		idle = opts.idle
	}

	ctx, caught, stop := signalContext(ctx)
	defer stop()
	var keys *keyReader
	var keyCh <-chan playKey
	raw := s.in != nil && term.IsTerminal(s.in.Fd())
	if raw {
		state, err := term.MakeRaw(s.in.Fd())
		if err != nil {
			termsafe.Fprintln(s.err, "sandmux play: raw mode:", err)
			return exitFailure
		}
		// Deferred, so a panic restores the terminal as well.
		defer func() { _ = term.Restore(s.in.Fd(), state) }() // Best effort: nothing better to do on exit.
		if keys, err = readKeys(s.in); err != nil {
			termsafe.Fprintln(s.err, "sandmux play: reading keys:", err)
		} else {
			keyCh = keys.keys
			defer keys.stop()
		}
	}
	p := newPlayer(dec, s.out, opts.speed, idle, keyCh)
	quit, err := p.play(ctx)
	notes := noteWriter{w: s.err, eol: "\n"}
	if raw {
		notes.eol = "\r\n" // the terminal is still raw: a newline does not return
	}
	if outIsTerminal(s.out) {
		_, _ = io.WriteString(s.out, resetInputModes) // Best effort: the terminal may be gone.
		notes.lead = notes.eol                        // the cast's last line may not have ended
	}
	if sig, ok := caught().(syscall.Signal); ok {
		return 128 + int(sig)
	}
	if err != nil {
		notes.say("sandmux play: %s: %v", opts.file, err)
		return exitFailure
	}
	playNotes(notes, s.out, p, quit)
	return exitOK
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

// resetInputModes turns off what a cast may have turned on that changes
// what the keyboard and mouse send, and shows the cursor; it leaves the
// screen as the cast drew it (the alternate screen included).
const resetInputModes = "\x1b[0m\x1b[?25h\x1b[?1l\x1b>\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l"

// playNotes says on standard error where a quit stopped, and when the cast
// ended at a size this terminal is not.
func playNotes(n noteWriter, out io.Writer, p *player, quit bool) {
	if f, ok := out.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if w, h, err := term.GetSize(f.Fd()); err == nil && (w != p.cols || h != p.rows) {
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

func outIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// playOptions are play's flags and file.
type playOptions struct {
	file  string
	speed float64
	idle  float64 // -1: the cast's own idle_time_limit
}

// parsePlayArgs parses the flags, before or after the file; code is -1
// unless the command should exit with it.
func parsePlayArgs(args []string, s stdio) (playOptions, int) {
	o := playOptions{speed: 1, idle: -1}
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	fs.Func("speed", "play `X` times as fast; 0 plays without any pause (default 1)", func(v string) error {
		return parseNumber(v, 0, maxPlaySpeed, &o.speed)
	})
	fs.Func("idle-limit", "shorten every pause to at most `S` seconds (2.5, or a duration: 500ms); 0: no limit (default: the recording's idle_time_limit)", func(v string) error {
		return parseSeconds(v, &o.idle)
	})
	fs.Usage = func() {
		fmt.Fprintln(s.err, "usage:", playUsage)
		fs.PrintDefaults()
		fmt.Fprintln(s.err, "keys: space pauses and resumes, . plays one event while paused, q or ctrl+c quits")
	}
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return o, exitOK
			}
			return o, exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 1 {
		fs.Usage()
		return o, exitUsage
	}
	o.file = files[0]
	return o, -1
}

func parseNumber(v string, lo, hi float64, dst *float64) error {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(n) || n < lo || n > hi {
		return fmt.Errorf("want a number from %v to %v", lo, hi)
	}
	*dst = n
	return nil
}

func parseSeconds(v string, dst *float64) error {
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		*dst = d.Seconds()
		return nil
	}
	return parseNumber(v, 0, 1e9, dst)
}

// openCast opens a recording and reads its header. A FIFO or device would
// block or never end: a recording is a regular file.
func openCast(path string) (*os.File, *asciicast.Decoder, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("%w (give the path of an asciicast v2 recording)", err)
	} else if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file (give the path of an asciicast v2 recording)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (give the path of an asciicast v2 recording)", err)
	}
	dec, err := asciicast.NewDecoder(f)
	if err != nil {
		_ = f.Close() // Best effort: the header error is the one to report.
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, dec, nil
}
