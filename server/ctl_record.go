package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/ui"
)

// RecordRequest is one ctl record request, its session resolved.
type RecordRequest struct {
	// Action is start, stop, pause, resume or marker.
	Action string
	// ID is the session's; View records a client's view instead (Client
	// 0: the one that typed last).
	ID     string
	View   bool
	Client int
	// File is the cast to write (absolute), "" for one in the
	// recordings directory.
	File      string
	IdleLimit time.Duration
	Label     string
}

// maxLabel bounds a marker's label.
const maxLabel = 200

func (h *ctlHandler) record(ctx context.Context, req control.Request) (control.Reply, error) {
	r := RecordRequest{Action: req.Action, View: req.View, Client: req.Client, File: req.File,
		IdleLimit: time.Duration(req.IdleLimit), Label: req.Label}
	if err := checkRecord(req); err != nil {
		return control.Reply{}, err
	}
	what := "the view"
	if !req.View {
		si, err := h.resolve(req.Session)
		if err != nil {
			return control.Reply{}, err
		}
		r.ID, what = si.ID, describe(si)
	}
	file, err := h.core.Record(ctx, r)
	if err != nil {
		return control.Reply{}, fmt.Errorf("record %s: %s: %w", req.Action, what, err)
	}
	return control.Reply{File: file}, nil
}

// checkRecord refuses what no action takes, before anything is done.
func checkRecord(req control.Request) error {
	switch {
	case !slices.Contains(control.RecordActions, req.Action):
		return fmt.Errorf("record takes an action: start, stop, pause, resume or marker, not %s", quote(req.Action))
	case req.View && req.Session != "":
		return errors.New("record --view records a client's view, not a session: give one or the other")
	case req.View && req.Action != "start" && req.Action != "stop":
		return errors.New("a view recording only starts and stops")
	case !req.View && req.Client != 0:
		return errors.New("--client names the client whose view is recorded: give --view with it")
	case req.Client < 0:
		return errors.New("--client is a client's number, from 1")
	case req.File != "" && req.Action != "start":
		return errors.New("-o names the file a recording starts with: give it to start")
	case req.File != "" && !filepath.IsAbs(req.File):
		return fmt.Errorf("the file %s is not absolute: the server's working directory is not the client's (sandmux ctl makes it absolute)", quote(req.File))
	case req.IdleLimit != 0 && (req.Action != "start" || req.View):
		return errors.New("--idle-limit shortens the pauses of a pane's recording: give it to start one")
	case req.Label != "" && req.Action != "marker":
		return errors.New("a label is a marker's: give it to record marker")
	case len(req.Label) > maxLabel:
		return fmt.Errorf("the label has %d bytes: say it in at most %d", len(req.Label), maxLabel)
	}
	return nil
}

func (h *ctlHandler) saveLast(ctx context.Context, req control.Request) (control.Reply, error) {
	if !filepath.IsAbs(req.File) {
		return control.Reply{}, fmt.Errorf("the file %s is not absolute: the server's working directory is not the client's (sandmux ctl makes it absolute)", quote(req.File))
	}
	si, err := h.resolve(req.Session)
	if err != nil {
		return control.Reply{}, err
	}
	file, err := h.core.SaveLast(ctx, si.ID, time.Duration(req.Duration), req.File)
	if err != nil {
		return control.Reply{}, fmt.Errorf("save the last of %s: %w", describe(si), err)
	}
	return control.Reply{File: file}, nil
}

// Record runs the request on the model's loop and, for a start or a
// stop, waits until the file is open or flushed.
func (c *serverCore) Record(ctx context.Context, r RecordRequest) (string, error) {
	var file string
	var refused error
	wait, ended := c.ender()
	err := c.do(func(m *ui.Model) tea.Cmd {
		var cmd tea.Cmd
		switch {
		case r.Action == "start" && r.View:
			cmd, refused = m.RecordViewStart(r.Client, r.File, wait)
		case r.Action == "stop" && r.View:
			cmd, refused = m.RecordViewStop(r.Client, wait)
		case r.Action == "start":
			cmd, refused = m.RecordStart(r.ID, r.File, r.IdleLimit, wait)
		case r.Action == "stop":
			cmd, refused = m.RecordStop(r.ID, wait)
		case r.Action == "marker":
			file, refused = m.RecordMarker(r.ID, r.Label)
		default:
			file, refused = m.RecordPause(r.ID, r.Action == "pause")
		}
		return cmd
	})
	if err := errors.Join(err, refused); err != nil || file != "" {
		return file, err
	}
	return c.await(ctx, ended)
}

// SaveLast writes the pane's ring in a command and waits for it.
func (c *serverCore) SaveLast(ctx context.Context, id string, d time.Duration, file string) (string, error) {
	var refused error
	wait, ended := c.ender()
	err := c.do(func(m *ui.Model) tea.Cmd {
		var cmd tea.Cmd
		cmd, refused = m.SaveLast(id, d, file, wait)
		return cmd
	})
	if err := errors.Join(err, refused); err != nil {
		return "", err
	}
	return c.await(ctx, ended)
}

type fileDone struct {
	file string
	err  error
}

// ender is a done function for the model and the channel it tells.
func (c *serverCore) ender() (func(string, error), chan fileDone) {
	ended := make(chan fileDone, 1)
	return func(file string, err error) { ended <- fileDone{file, err} }, ended
}

// await waits for ended, the client going away, or the server's end.
func (c *serverCore) await(ctx context.Context, ended chan fileDone) (string, error) {
	select {
	case d := <-ended:
		return d.file, d.err
	case <-ctx.Done():
		return "", fmt.Errorf("stopped waiting (the recording goes on): %w", context.Cause(ctx))
	case <-c.s.Done():
		return "", errServerGone
	}
}
