package main

import (
	"errors"
	"flag"
	"slices"

	"github.com/sandmux/sandmux/control"
)

// errUsage is a usage error whose flag set already said what is wrong.
var errUsage = errors.New("")

func noArgs(op control.Op) func(*flag.FlagSet, []string) (control.Request, error) {
	return func(fs *flag.FlagSet, args []string) (control.Request, error) {
		if err := fs.Parse(args); err != nil {
			return control.Request{}, errUsage
		}
		if fs.NArg() != 0 {
			return control.Request{}, errors.New("takes no arguments")
		}
		return control.Request{Op: op}, nil
	}
}

func oneSession(op control.Op) func(*flag.FlagSet, []string) (control.Request, error) {
	return func(fs *flag.FlagSet, args []string) (control.Request, error) {
		if err := fs.Parse(args); err != nil {
			return control.Request{}, errUsage
		}
		if fs.NArg() != 1 {
			return control.Request{}, errors.New("name one session: its pane number, name or id")
		}
		return control.Request{Op: op, Session: fs.Arg(0)}, nil
	}
}

func parseRun(fs *flag.FlagSet, args []string) (control.Request, error) {
	name := fs.String("name", "", "the pane's `NAME` (default: the command's first word)")
	if err := fs.Parse(args); err != nil {
		return control.Request{}, errUsage
	}
	if fs.NArg() == 0 {
		return control.Request{}, errors.New("give the command to run, after --")
	}
	return control.Request{Op: control.OpRun, Name: *name, Argv: fs.Args()}, nil
}

func parseStart(fs *flag.FlagSet, args []string) (control.Request, error) {
	if err := fs.Parse(args); err != nil {
		return control.Request{}, errUsage
	}
	if fs.NArg() != 1 {
		return control.Request{}, errors.New("name one of the config's sandboxes")
	}
	return control.Request{Op: control.OpStart, Sandbox: fs.Arg(0)}, nil
}

func parseSend(fs *flag.FlagSet, args []string) (control.Request, error) {
	paste := fs.Bool("paste", false, "send TEXT as a bracketed paste when the program asked for them")
	if err := fs.Parse(args); err != nil {
		return control.Request{}, errUsage
	}
	if fs.NArg() != 2 {
		return control.Request{}, errors.New("give a session and one TEXT (quote it)")
	}
	data, err := control.Unescape(fs.Arg(1))
	if err != nil {
		return control.Request{}, err
	}
	if len(data) == 0 {
		return control.Request{}, errors.New("TEXT is empty: nothing to send")
	}
	return control.Request{Op: control.OpSend, Session: fs.Arg(0), Data: data, Paste: *paste}, nil
}

func parseKeys(fs *flag.FlagSet, args []string) (control.Request, error) {
	if err := fs.Parse(args); err != nil {
		return control.Request{}, errUsage
	}
	if fs.NArg() < 2 {
		return control.Request{}, errors.New("give a session and at least one key")
	}
	return control.Request{Op: control.OpKeys, Session: fs.Arg(0), Keys: fs.Args()[1:]}, nil
}

func parseScreen(fs *flag.FlagSet, args []string) (control.Request, error) {
	ansi := fs.Bool("ansi", false, "keep colours and attributes (SGR)")
	scrollback := fs.Bool("scrollback", false, "print the scrollback before the screen")
	req, err := oneSession(control.OpScreen)(fs, args)
	req.ANSI, req.Scrollback = *ansi, *scrollback
	return req, err
}

// waitStates are the states ctl wait can wait for.
var waitStates = []string{"starting", "running", "exited", "killed", "failed", "disconnected", "closed"}

func parseWait(fs *flag.FlagSet, args []string) (control.Request, error) {
	state := fs.String("state", "", "the `STATE` to wait for: starting, running, exited, killed, failed, disconnected or closed")
	timeout := fs.Duration("timeout", 0, "give up after `D` and exit 1 (0: wait for good)")
	req, err := oneSession(control.OpWait)(fs, args)
	if err != nil {
		return req, err
	}
	if !slices.Contains(waitStates, *state) {
		return control.Request{}, errors.New("--state is one of starting, running, exited, killed, failed, disconnected, closed")
	}
	if *timeout < 0 {
		return control.Request{}, errors.New("--timeout cannot be negative")
	}
	req.State, req.Timeout = *state, control.Duration(*timeout)
	return req, nil
}

func parseQuit(fs *flag.FlagSet, args []string) (control.Request, error) {
	kill := fs.Bool("kill", false, "kill every session now, as a second q does, instead of the graceful teardown")
	req, err := noArgs(control.OpQuit)(fs, args)
	req.Kill = *kill
	return req, err
}
