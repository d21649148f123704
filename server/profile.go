package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"time"

	"github.com/sandmux/sandmux/control"
)

// The window of a CPU profile or a trace: 10 s unless asked, at most 5
// minutes, so a request never holds the profiler or the tracer (one at a
// time each) without bound.
const (
	defaultProfileWindow = 10 * time.Second
	maxProfileWindow     = 5 * time.Minute
)

// profile writes one of the server's profiles to req.File, a file that
// must not exist yet. A CPU profile or a trace answers once its window
// ended; one cut short because the client went away leaves no file.
func (h *ctlHandler) profile(ctx context.Context, req control.Request) (control.Reply, error) {
	kind := req.Profile
	if kind == "" {
		kind = control.Profiles[0]
	}
	window := time.Duration(req.Duration)
	switch {
	case !slices.Contains(control.Profiles, kind):
		return control.Reply{}, fmt.Errorf("no profile %s: take one of %v", quote(kind), control.Profiles)
	case !filepath.IsAbs(req.File):
		return control.Reply{}, fmt.Errorf("the file %s is not absolute: the server's working directory is not the client's (sandmux ctl makes it absolute)", quote(req.File))
	case window < 0 || window > maxProfileWindow:
		return control.Reply{}, fmt.Errorf("a profile's window of %v is out of bounds: give one from 1s to %v", window, maxProfileWindow)
	case window == 0:
		window = defaultProfileWindow
	}
	f, err := os.OpenFile(req.File, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return control.Reply{}, fmt.Errorf("create the profile: %w (name a file that does not exist yet)", err)
	}
	err = writeProfile(ctx, f, kind, window)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write the profile: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(req.File) // Best effort: a partial profile reads as a broken one.
		return control.Reply{}, err
	}
	return control.Reply{File: req.File}, nil
}

// writeProfile writes the profile kind to f.
func writeProfile(ctx context.Context, f *os.File, kind string, window time.Duration) error {
	switch kind {
	case "cpu":
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("start the cpu profile: %w (one is taken at a time: wait for the other to end)", err)
		}
		defer pprof.StopCPUProfile()
	case "trace":
		if err := trace.Start(f); err != nil {
			return fmt.Errorf("start the trace: %w (one is taken at a time: wait for the other to end)", err)
		}
		defer trace.Stop()
	default:
		if kind == "heap" {
			runtime.GC() // the live heap, as of now, rather than as of the last collection
		}
		if err := pprof.Lookup(kind).WriteTo(f, 0); err != nil {
			return fmt.Errorf("write the %s profile: %w", kind, err)
		}
		return nil
	}
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the %s window was cut short: the client went away", kind)
	}
}
