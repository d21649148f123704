package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/sandmux/sandmux/headless"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/termsafe"
)

const screenUsage = "sandmux screen [--size COLSxROWS] [--ansi] [--scrollback] [--timeout D] [--] CMD [ARGS...]"

// exitTimeout is what screen exits with when --timeout ended CMD, as
// timeout(1) does.
const exitTimeout = 124

// runScreen runs CMD headless in a local PTY through a session and the
// screen, and prints the final screen as a real terminal would show it.
func runScreen(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("screen", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	sizeFlag := fs.String("size", "80x24", "terminal size `COLSxROWS`")
	withSGR := fs.Bool("ansi", false, "keep colours and attributes (SGR)")
	withScrollback := fs.Bool("scrollback", false, "print the scrollback before the screen")
	timeout := fs.Duration("timeout", 0, "tear CMD down after `D` and print the screen it left (exit 124); 0 waits for it")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", screenUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	size, err := providers.ParseSize(*sizeFlag)
	if err != nil || fs.NArg() == 0 || *timeout < 0 {
		if err != nil {
			termsafe.Fprintln(s.err, "sandmux screen:", err)
		}
		fs.Usage()
		return exitUsage
	}
	ctx, caught, stop := signalContext(ctx)
	defer stop()
	ctx, timedOut, cancelTimeout := withTimeout(ctx, *timeout)
	defer cancelTimeout()

	// The session feeds the screen and takes its answers to the child's
	// queries (cursor position, device attributes).
	screen := vt.New(int(size.Cols), int(size.Rows), vt.WithScrollback(100000))
	defer screen.Close()
	opts := session.Options{Screen: screen}
	run, err := headless.Start(ctx, "screen", fs.Args(), size, opts)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux screen:", headless.StartError(fs.Args(), err))
		return exitFailure
	}
	input := headless.TypeInput(s.in, run.Session())
	_ = run.Finish(ctx) // Its outcome is in the session's info, read by ExitCode.
	input.Wait()

	out := screen.Dump(nil, *withScrollback, *withSGR)
	out = append(out, '\n')
	_, _ = s.out.Write(out) // Best effort: nowhere else to report.
	if timedOut() && caught() == nil {
		return exitTimeout
	}
	return run.ExitCode(caught())
}

// withTimeout is ctx bounded by d (unbounded when d is 0); timedOut reports
// whether the bound, not the parent, ended it.
func withTimeout(ctx context.Context, d time.Duration) (_ context.Context, timedOut func() bool, cancel func()) {
	if d == 0 {
		return ctx, func() bool { return false }, func() {}
	}
	errTimeout := fmt.Errorf("--timeout %v passed", d)
	bounded, cancel := context.WithTimeoutCause(ctx, d, errTimeout)
	return bounded, func() bool { return errors.Is(context.Cause(bounded), errTimeout) }, cancel
}
