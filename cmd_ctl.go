package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/sandmux/sandmux/ctl"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/termsafe"
)

// ctlUsage is ctl's line of help: every subcommand, from the table.
var ctlUsage = "sandmux ctl [-L NAME | -S PATH] [--json] " + strings.Join(slices.Sorted(maps.Keys(ctl.Commands)), "|") + " ...: drive a running server"

// runCtl sends one request to a running server and prints its answer.
// Exit codes: 0 done, 1 failed (the message says what to do), 2 usage.
func runCtl(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("ctl", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	var name, path string
	var asJSON bool
	// The global flags are the subcommand's too: ctl ls --json is what
	// people type.
	global := func(fs *flag.FlagSet) {
		fs.StringVar(&name, "L", name, "the server's `NAME` (default: $"+endpoint.EnvSocket+" inside a pane, else "+endpoint.DefaultName+")")
		fs.StringVar(&path, "S", path, "the server's socket `PATH`")
		fs.BoolVar(&asJSON, "json", asJSON, "print the reply as JSON")
	}
	global(fs)
	fs.Usage = func() { ctlHelp(s.err, fs) }
	if err := fs.Parse(args); err != nil {
		return exitUsage // the flag package printed the error and the usage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	sub, ok := ctl.Commands[fs.Arg(0)]
	if !ok {
		termsafe.Fprintf(s.err, "sandmux ctl: unknown subcommand %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	subFlags := flag.NewFlagSet("ctl "+fs.Arg(0), flag.ContinueOnError)
	subFlags.SetOutput(termsafe.NewWriter(s.err))
	global(subFlags)
	subFlags.Usage = func() { fmt.Fprintln(s.err, "usage: sandmux ctl", sub.Usage); subFlags.PrintDefaults() }
	req, err := sub.Parse(subFlags, fs.Args()[1:])
	if err != nil {
		// The flag package printed its own error and the usage already.
		if !errors.Is(err, ctl.ErrUsage) {
			termsafe.Fprintln(s.err, "sandmux ctl:", err)
			subFlags.Usage()
		}
		return exitUsage
	}
	socket, err := ctlSocket(name, path)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux ctl:", err)
		return exitUsage
	}
	conn, ok := dialServer(socket, "sandmux ctl:", s)
	if !ok {
		return exitFailure
	}
	if err := ctl.Call(ctx, conn, req, asJSON, s.out); err != nil {
		termsafe.Fprintln(s.err, "sandmux ctl:", err)
		return exitFailure
	}
	return exitOK
}

func ctlHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage:", ctlUsage)
	fs.PrintDefaults()
	fmt.Fprintln(w, "subcommands (S is a pane number, name or id; flags may follow it, and -- ends them):")
	for _, name := range slices.Sorted(maps.Keys(ctl.Commands)) {
		fmt.Fprintln(w, "  ", ctl.Commands[name].Usage)
	}
}

// ctlSocket is the server's socket: -S, else -L, else the server of the
// pane this runs in, else the default server.
func ctlSocket(name, path string) (string, error) {
	if path == "" && name == "" {
		if env := os.Getenv(endpoint.EnvSocket); env != "" {
			return env, nil
		}
	}
	return endpoint.Path(name, path)
}

// dialServer connects to the server at socket, or says why it cannot,
// after prefix, and what to do about a server that is not running.
func dialServer(socket, prefix string, s stdio) (*net.UnixConn, bool) {
	conn, err := endpoint.Dial(socket)
	switch {
	case errors.Is(err, endpoint.ErrNoServer):
		termsafe.Fprintln(s.err, prefix, err, "(start one with sandmux or sandmux serve; sandmux ls lists those running)")
	case err != nil:
		termsafe.Fprintln(s.err, prefix, err)
	}
	return conn, err == nil
}
