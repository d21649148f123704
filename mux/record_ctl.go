package mux

import (
	"errors"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/human"
	"github.com/sandmux/sandmux/record"
)

// The recording commands: the prefix keys R, M, S and V, and what a
// server's control requests may do (call those from DoMsg). The done
// functions are told the file and how it went, from Update or from the
// command that wrote the file: they must not block.

// SaveLastOf writes the last d (0: all the ring keeps) of pane p's ring
// to path (or a name in the dir) in a command.
func (s *Shared) SaveLastOf(p *Pane, d time.Duration, path string, done func(string, error), tell int) (tea.Cmd, error) {
	if s.quitting {
		return nil, errors.New("the server is quitting: nothing new is saved")
	}
	ring := p.recs.ring
	if ring == nil {
		if s.cfg.Record.Retain <= 0 {
			return nil, errors.New(`no pane keeps its output: [record] retain is "0"`)
		}
		return nil, fmt.Errorf("it is %s: it has kept nothing", p.status())
	}
	if d <= 0 {
		d = s.cfg.Record.Retain
	}
	dir, name, now := s.cfg.Record.Dir, p.spec.Name+"-last", s.now()
	s.rec.stops.Add(1) // the quit waits for the file, as for a recording's
	return func() tea.Msg {
		defer s.rec.stops.Done()
		err := writeLast(ring, d, dir, &path, name, now)
		if done != nil {
			done(path, err)
		}
		if tell == NoView {
			return nil
		}
		if err != nil {
			return recNoticeMsg{view: tell, text: "not saved: " + err.Error()}
		}
		return recNoticeMsg{view: tell, text: fmt.Sprintf("saved the last %s to %s", human.Duration(d), path)}
	}, nil
}

// writeLast creates the file and writes the ring's window to it; a file
// it could not write is removed. *path becomes the file's name.
func writeLast(ring *record.Ring, d time.Duration, dir string, path *string, name string, now time.Time) error {
	f, p, err := CreateCast(dir, *path, name, now)
	*path = p
	if err != nil {
		return err
	}
	// The ring's times are the screen's, wall clock: so is the window's end.
	err = ring.SaveLast(f, d, time.Now())
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close the cast: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(p) // Best effort: a cast cut short would mislead.
		if errors.Is(err, record.ErrEmpty) {
			return errors.New("the pane has kept nothing yet")
		}
		return fmt.Errorf("%w; check the disk the cast is written to", err)
	}
	return nil
}

// RecordStart starts recording pane id to path ("" for a name in the
// recordings directory); idle 0 is the config's idle limit.
func (s *Shared) RecordStart(id, path string, idle time.Duration, done func(string, error)) (tea.Cmd, error) {
	return s.onPane(id, func(p *Pane) (tea.Cmd, error) { return s.StartRecordingOf(p, path, idle, done, NoView) })
}

// onPane runs do on pane id; its error names the pane by number, as ctl
// shows it.
func (s *Shared) onPane(id string, do func(*Pane) (tea.Cmd, error)) (tea.Cmd, error) {
	i, p, err := s.find(id)
	if err != nil {
		return nil, err
	}
	cmd, err := do(p)
	if err != nil {
		return nil, fmt.Errorf("pane %d: %w", i+1, err)
	}
	return cmd, nil
}

// RecordStop stops pane id's recording; done is told once it is flushed.
func (s *Shared) RecordStop(id string, done func(string, error)) (tea.Cmd, error) {
	i, p, err := s.find(id)
	if err != nil {
		return nil, err
	}
	if p.recs.rec == nil {
		return nil, fmt.Errorf("pane %d is not recorded: sandmux ctl record start records it", i+1)
	}
	return s.StopRecordingOf(p, "", done, NoView), nil
}

// RecordPause pauses (or resumes) pane id's recording and returns its file.
func (s *Shared) RecordPause(id string, pause bool) (string, error) {
	i, p, err := s.find(id)
	if err != nil {
		return "", err
	}
	r := &p.recs
	if r.rec == nil {
		return "", fmt.Errorf("pane %d is not recorded: sandmux ctl record start records it", i+1)
	}
	now := s.now()
	switch {
	case pause && r.pausedAt.IsZero():
		r.rec.Pause()
		r.pausedAt = now
	case !pause && !r.pausedAt.IsZero():
		r.rec.Resume()
		r.paused += now.Sub(r.pausedAt)
		r.pausedAt = time.Time{}
	}
	s.redraw = true
	return r.path, nil
}

// RecordMarker adds a marker labelled label to pane id's recording.
func (s *Shared) RecordMarker(id, label string) (string, error) {
	i, p, err := s.find(id)
	if err != nil {
		return "", err
	}
	if p.recs.rec == nil {
		return "", fmt.Errorf("pane %d is not recorded: sandmux ctl record start records it", i+1)
	}
	p.recs.markers++
	if label == "" {
		label = fmt.Sprintf("marker %d", p.recs.markers)
	}
	p.recs.rec.Marker(label)
	return p.recs.path, nil
}

// SaveLast writes the last d of pane id's output to path ("" for a name
// in the recordings directory).
func (s *Shared) SaveLast(id string, d time.Duration, path string, done func(string, error)) (tea.Cmd, error) {
	return s.onPane(id, func(p *Pane) (tea.Cmd, error) { return s.SaveLastOf(p, d, path, done, NoView) })
}
