package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"syscall"
	"time"

	"github.com/sandmux/sandmux/play"
	"github.com/sandmux/sandmux/termsafe"
)

const playUsage = "sandmux play [--speed X] [--idle-limit S] FILE.cast"

// maxPlaySpeed bounds --speed: past it every pause is below what a
// terminal shows anyway.
const maxPlaySpeed = 1000

// runPlay plays an asciicast v2 recording on this terminal (package
// play), until its end, q, or SIGINT, SIGTERM or SIGHUP, which exit
// 128+N.
func runPlay(ctx context.Context, args []string, s stdio) int {
	opts, code := parsePlayArgs(args, s)
	if code >= 0 {
		return code
	}
	cast, err := play.Open(opts.file)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux play:", err)
		return exitFailure
	}
	defer cast.Close()
	ctx, caught, stop := signalContext(ctx)
	defer stop()
	err = cast.Play(ctx, play.Options{Speed: opts.speed, Idle: opts.idle}, s.in, s.out, s.err)
	if sig, ok := caught().(syscall.Signal); ok {
		return 128 + int(sig)
	}
	if err != nil {
		return exitFailure // said by Play
	}
	return exitOK
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
