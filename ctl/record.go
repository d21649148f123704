package ctl

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sandmux/sandmux/control"
)

// parseRecord reads `record ACTION [S] [flags]`: start, stop, pause,
// resume or marker a pane's recording, or start or stop a client's view
// recording with --view.
func parseRecord(fs *flag.FlagSet, args []string) (control.Request, error) {
	view := fs.Bool("view", false, "record a client's whole view (what sandmux draws on its terminal) instead of one pane")
	client := fs.Int("client", 0, "with --view: the client `C` whose view (default: the one that typed last)")
	out := fs.String("o", "", "the `FILE` to write (default: one in [record] dir, named after the pane and the time)")
	idle := durationFlag(fs, "idle-limit", "shorten every pause longer than `D` to D (default: [record] idle_limit)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	if len(pos) == 0 || !slices.Contains(control.RecordActions, pos[0]) {
		return control.Request{}, errors.New("give an action: " + strings.Join(control.RecordActions, ", "))
	}
	req := control.Request{Op: control.OpRecord, Action: pos[0], View: *view, Client: *client}
	pos = pos[1:]
	switch {
	case *view && len(pos) != 0:
		return control.Request{}, errors.New("--view records a client's view: name no session")
	case !*view && req.Action == "marker" && (len(pos) < 1 || len(pos) > 2):
		return control.Request{}, errors.New("name one session, and the marker's LABEL if any")
	case !*view && req.Action != "marker" && len(pos) != 1:
		return control.Request{}, errors.New("name one session: its pane number, name or id (or give --view)")
	case *idle < 0:
		return control.Request{}, errors.New("--idle-limit cannot be negative")
	}
	if len(pos) > 0 {
		req.Session = pos[0]
	}
	if len(pos) > 1 {
		req.Label = pos[1]
	}
	req.IdleLimit = control.Duration(*idle)
	if req.File, err = absFile(*out); err != nil {
		return control.Request{}, err
	}
	return req, nil
}

// parseSaveLast reads `save-last S [--duration D] -o FILE`.
func parseSaveLast(fs *flag.FlagSet, args []string) (control.Request, error) {
	d := durationFlag(fs, "duration", "save the last `D` (default: all that [record] retain keeps)")
	out := fs.String("o", "", "the `FILE` to write")
	req, err := oneSession(control.OpSaveLast)(fs, args)
	if err != nil {
		return req, err
	}
	if *d < 0 {
		return control.Request{}, errors.New("--duration cannot be negative")
	}
	if *out == "" {
		return control.Request{}, errors.New("give the file to write with -o FILE")
	}
	req.Duration = control.Duration(*d)
	req.File, err = absFile(*out)
	return req, err
}

// parseProfile reads `profile [KIND] [--seconds N] -o FILE`.
func parseProfile(fs *flag.FlagSet, args []string) (control.Request, error) {
	secs := fs.Int("seconds", 10, "how long a cpu profile or trace runs, in `N` seconds (at most 300)")
	out := fs.String("o", "", "the `FILE` to write (read it with go tool pprof, a trace with go tool trace)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	switch {
	case len(pos) > 1 || len(pos) == 1 && !slices.Contains(control.Profiles, pos[0]):
		return control.Request{}, errors.New("give at most one profile: " + strings.Join(control.Profiles, ", "))
	case *secs < 1 || *secs > 300:
		return control.Request{}, errors.New("--seconds must be from 1 to 300")
	case *out == "":
		return control.Request{}, errors.New("give the file to write with -o FILE")
	}
	req := control.Request{Op: control.OpProfile, Duration: control.Duration(time.Duration(*secs) * time.Second)}
	if len(pos) == 1 {
		req.Profile = pos[0]
	}
	req.File, err = absFile(*out)
	return req, err
}

// absFile makes a file the user named absolute: the server's working
// directory is not this command's.
func absFile(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", fmt.Errorf("make %q absolute: %w (give an absolute path)", name, err)
	}
	return abs, nil
}
