package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/sandmux/sandmux/headless"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/tty"
)

const recordUsage = "sandmux record -o FILE.cast [--force] [--size COLSxROWS] [--stop-grace D] [--kill-grace D] [--] CMD [ARGS...]"

// runRecord runs CMD in a local PTY through a session, headless, and writes
// its settled output as an asciicast v2 file. It exits with CMD's code
// (128+N for death by signal N); on SIGINT, SIGTERM or SIGHUP it tears CMD's
// group down with the escalation, finishes the file, and exits 130, 143 or
// 129.
func runRecord(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	out := fs.String("o", "", "write the recording to `FILE`, a new one (made 0600)")
	force := fs.Bool("force", false, "replace FILE when it exists (a link there is replaced, never followed)")
	sizeFlag := fs.String("size", "", "terminal size `COLSxROWS` (default: this terminal's, else 80x24)")
	stopGrace := fs.Duration("stop-grace", session.DefaultStopGrace, "on a signal, wait `D` after SIGHUP before SIGTERM")
	killGrace := fs.Duration("kill-grace", session.DefaultKillGrace, "then wait `D` after SIGTERM before SIGKILL")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", recordUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	argv := fs.Args()
	if *out == "" || len(argv) == 0 || *stopGrace <= 0 || *killGrace <= 0 {
		fs.Usage()
		return exitUsage
	}
	interactive := tty.IsTerminal(s.in)
	size, err := recordSize(*sizeFlag, s.in, interactive)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", err)
		return exitUsage
	}

	ctx, caught, stop := signalContext(ctx)
	defer stop()
	rec, err := headless.NewRecording(*out, *force, size, argv)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", err)
		return exitFailure
	}
	opts := session.Options{StopGrace: *stopGrace, KillGrace: *killGrace, DrainGrace: session.DefaultDrainGrace}
	opts.Sinks = []session.Sink{rec.Cast}
	if interactive {
		opts.Sinks = append(opts.Sinks, headless.WriterSink{W: s.out})
	}
	run, err := headless.Start(ctx, "record", argv, size, opts)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", errors.Join(err, rec.Abort()))
		return exitFailure
	}
	var passing *headless.Passing
	if interactive {
		// Without --size, the recording follows this terminal's size.
		if passing, err = headless.Passthrough(s.in, run.Session(), size, *sizeFlag == "", rec.Cast, rec.Start); err != nil {
			termsafe.Fprintln(s.err, "sandmux record: passing input through:", err)
		}
	}
	closeErr := run.Finish(ctx)
	passing.Stop()
	if err := rec.Finish(); err != nil {
		termsafe.Fprintln(s.err, "sandmux record:", err)
		return exitFailure
	}
	if closeErr != nil && caught() == nil {
		termsafe.Fprintln(s.err, "sandmux record:", closeErr)
	}
	return run.ExitCode(caught())
}

func recordSize(flagValue string, in *os.File, interactive bool) (providers.Size, error) {
	if flagValue != "" {
		return providers.ParseSize(flagValue)
	}
	if w, h, ok := tty.Size(in); interactive && ok {
		return providers.Size{Cols: uint16(w), Rows: uint16(h)}, nil
	}
	return providers.Size{Cols: 80, Rows: 24}, nil
}
