package ctl

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/status"
)

// ErrUsage is a usage error whose flag set already said what is wrong.
var ErrUsage = errors.New("")

// parseArgs parses fs's flags wherever they stand among args, so that
// `wait 2 --state exited` reads as `wait --state exited 2` does, and
// returns the other arguments in order. "--" ends the flags: whatever
// follows it (a TEXT that starts with "-") is an argument.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, ErrUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

func noArgs(op control.Op) func(*flag.FlagSet, []string) (control.Request, error) {
	return func(fs *flag.FlagSet, args []string) (control.Request, error) {
		pos, err := parseArgs(fs, args)
		if err != nil {
			return control.Request{}, err
		}
		if len(pos) != 0 {
			return control.Request{}, errors.New("takes no arguments")
		}
		return control.Request{Op: op}, nil
	}
}

func oneSession(op control.Op) func(*flag.FlagSet, []string) (control.Request, error) {
	return func(fs *flag.FlagSet, args []string) (control.Request, error) {
		pos, err := parseArgs(fs, args)
		if err != nil {
			return control.Request{}, err
		}
		if len(pos) != 1 {
			return control.Request{}, errors.New("name one session: its pane number, name or id")
		}
		return control.Request{Op: op, Session: pos[0]}, nil
	}
}

// parseRun reads flags only before the command: the command's own
// arguments (sh -c ...) are never sandmux's.
func parseRun(fs *flag.FlagSet, args []string) (control.Request, error) {
	name := fs.String("name", "", "the pane's `NAME` (default: the command's first word)")
	if err := fs.Parse(args); err != nil {
		return control.Request{}, ErrUsage
	}
	if fs.NArg() == 0 {
		return control.Request{}, errors.New("give the command to run, after --")
	}
	return control.Request{Op: control.OpRun, Name: *name, Argv: fs.Args()}, nil
}

func parseStart(fs *flag.FlagSet, args []string) (control.Request, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	if len(pos) != 1 {
		return control.Request{}, errors.New("name one of the config's sandboxes")
	}
	return control.Request{Op: control.OpStart, Sandbox: pos[0]}, nil
}

func parseSend(fs *flag.FlagSet, args []string) (control.Request, error) {
	paste := fs.Bool("paste", false, "send TEXT as a bracketed paste when the program asked for them")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	if len(pos) != 2 {
		return control.Request{}, errors.New("give a session and one TEXT (quote it; a TEXT that starts with - goes after --)")
	}
	data, err := control.Unescape(pos[1])
	if err != nil {
		return control.Request{}, err
	}
	if len(data) == 0 {
		return control.Request{}, errors.New("TEXT is empty: nothing to send")
	}
	return control.Request{Op: control.OpSend, Session: pos[0], Data: data, Paste: *paste}, nil
}

func parseKeys(fs *flag.FlagSet, args []string) (control.Request, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	if len(pos) < 2 {
		return control.Request{}, errors.New("give a session and at least one key")
	}
	return control.Request{Op: control.OpKeys, Session: pos[0], Keys: pos[1:]}, nil
}

func parseScreen(fs *flag.FlagSet, args []string) (control.Request, error) {
	ansi := fs.Bool("ansi", false, "keep colours and attributes (SGR)")
	scrollback := fs.Bool("scrollback", false, "print the scrollback before the screen")
	req, err := oneSession(control.OpScreen)(fs, args)
	req.ANSI, req.Scrollback = *ansi, *scrollback
	return req, err
}

// waitStates and waitPhases are what ctl wait can wait for: the server's
// own lists, so that a state it reports is never refused here.
var (
	waitStates = strings.Join(control.WaitStates, ", ")
	waitPhases = strings.Join(control.WaitPhases, ", ")
)

func parseWait(fs *flag.FlagSet, args []string) (control.Request, error) {
	state := fs.String("state", "", "the `STATE` to wait for: one of "+waitStates)
	phase := fs.String("phase", "", "or the `PHASE`, whatever the state: one of "+waitPhases)
	timeout := durationFlag(fs, "timeout", "give up after `D` and exit 1 (0: wait for good)")
	req, err := oneSession(control.OpWait)(fs, args)
	if err != nil {
		return req, err
	}
	switch {
	case (*state == "") == (*phase == ""):
		return control.Request{}, errors.New("give --state or --phase (one of them)")
	case *state != "" && !slices.Contains(control.WaitStates, *state):
		return control.Request{}, errors.New("--state is one of " + waitStates)
	case *phase != "" && !slices.Contains(control.WaitPhases, *phase):
		return control.Request{}, errors.New("--phase is one of " + waitPhases)
	case *timeout < 0:
		return control.Request{}, errors.New("--timeout cannot be negative")
	}
	req.State, req.Phase, req.Timeout = *state, *phase, control.Duration(*timeout)
	return req, nil
}

// parseStatus reads `status [S] STATE`: inside a pane, S defaults to the
// pane itself (SANDMUX_PANE), which is what an agent's hooks want.
func parseStatus(fs *flag.FlagSet, args []string) (control.Request, error) {
	reason := fs.String("reason", "", "why, as the pane's title and the session list show it")
	ttl := durationFlag(fs, "ttl", "the report holds for `D`, then the other signals count again (0: until the next report)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	if len(pos) == 1 {
		if pane := os.Getenv("SANDMUX_PANE"); pane != "" {
			pos = []string{pane, pos[0]}
		}
	}
	if len(pos) != 2 {
		return control.Request{}, errors.New("give a session and a state (inside a pane, the state alone names that pane)")
	}
	if _, err := status.ParseReport(pos[1]); err != nil {
		return control.Request{}, err
	}
	if *ttl < 0 {
		return control.Request{}, errors.New("--ttl cannot be negative")
	}
	return control.Request{Op: control.OpStatus, Session: pos[0], State: pos[1], Reason: *reason, TTL: control.Duration(*ttl)}, nil
}

func parseQuit(fs *flag.FlagSet, args []string) (control.Request, error) {
	kill := fs.Bool("kill", false, "kill every session now, as a second q does, instead of the graceful teardown")
	req, err := noArgs(control.OpQuit)(fs, args)
	req.Kill = *kill
	return req, err
}

// durationValue is a duration flag whose error says how to write one:
// `--timeout 2` reads as seconds to a person, and Go's parser only says
// "missing unit".
type durationValue struct{ d *time.Duration }

func (v durationValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err == nil {
		*v.d = d
		return nil
	}
	if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
		return fmt.Errorf("a duration needs its unit: write %ss (or %sm, %sms)", s, s, s)
	}
	return errors.New("not a duration: write it as 30s, 5m or 1h30m")
}

// durationFlag defines a duration flag, zero by default.
func durationFlag(fs *flag.FlagSet, name, usage string) *time.Duration {
	d := new(time.Duration)
	fs.Var(durationValue{d}, name, usage)
	return d
}
