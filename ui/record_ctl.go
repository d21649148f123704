package ui

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/record"
	"github.com/sandmux/sandmux/ui/term"
)

// The recording commands: the prefix keys R, M, S and V, and what a
// server's control requests may do (call those from DoMsg). The done
// functions are told the file and how it went, from Update or from the
// command that wrote the file: they must not block.

// toggleRecording starts or stops recording the focused pane (prefix R).
func (v *view) toggleRecording() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	if p.recs.rec != nil {
		return v.m.stopRecording(p, "", nil, v.id)
	}
	cmd, err := v.m.startRecording(p, "", 0, nil, v.id)
	if err != nil {
		v.notice = "not recorded: " + err.Error()
	}
	return cmd
}

// markRecording adds a marker to the focused pane's recording (prefix M).
func (v *view) markRecording() tea.Cmd {
	p := v.focused()
	if p == nil || p.recs.rec == nil {
		v.notice = "no recording to mark: prefix R records the pane"
		return nil
	}
	p.recs.markers++
	label := fmt.Sprintf("marker %d", p.recs.markers)
	p.recs.rec.Marker(label)
	v.notice = label
	return nil
}

// saveLastFocused saves the focused pane's ring (prefix S).
func (v *view) saveLastFocused() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	cmd, err := v.m.saveLast(p, 0, "", nil, v.id)
	if err != nil {
		v.notice = "not saved: " + err.Error()
	}
	return cmd
}

// toggleViewRecording starts or stops recording this client's view
// (prefix V).
func (v *view) toggleViewRecording() tea.Cmd {
	if v.m.rec.views[v.id] != nil {
		return v.m.stopViewRecording(v.id, "", nil, v.id)
	}
	cmd, err := v.m.startViewRecording(v.id, "", nil, v.id)
	if err != nil {
		v.notice = "not recorded: " + err.Error()
	}
	return cmd
}

// saveLast writes the last d (0: all the ring keeps) of pane p's ring
// to path (or a name in the dir) in a command.
func (m *Model) saveLast(p *pane, d time.Duration, path string, done func(string, error), tell int) (tea.Cmd, error) {
	if m.quitting {
		return nil, errors.New("the server is quitting: nothing new is saved")
	}
	ring := p.recs.ring
	if ring == nil {
		if m.cfg.Record.Retain <= 0 {
			return nil, errors.New(`no pane keeps its output: [record] retain is "0"`)
		}
		return nil, fmt.Errorf("it is %s: it has kept nothing", p.status())
	}
	if d <= 0 {
		d = m.cfg.Record.Retain
	}
	dir, name, now := m.cfg.Record.Dir, p.spec.Name+"-last", m.now()
	m.rec.stops.Add(1) // the quit waits for the file, as for a recording's
	return func() tea.Msg {
		defer m.rec.stops.Done()
		err := writeLast(ring, d, dir, &path, name, now)
		if done != nil {
			done(path, err)
		}
		if tell == noView {
			return nil
		}
		if err != nil {
			return recNoticeMsg{view: tell, text: "not saved: " + err.Error()}
		}
		return recNoticeMsg{view: tell, text: fmt.Sprintf("saved the last %s to %s", ShortDuration(d), path)}
	}, nil
}

// writeLast creates the file and writes the ring's window to it; a file
// it could not write is removed. *path becomes the file's name.
func writeLast(ring *record.Ring, d time.Duration, dir string, path *string, name string, now time.Time) error {
	f, p, err := term.CreateCast(dir, *path, name, now)
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
func (m *Model) RecordStart(id, path string, idle time.Duration, done func(string, error)) (tea.Cmd, error) {
	i, p, err := m.find(id)
	if err != nil {
		return nil, err
	}
	cmd, err := m.startRecording(p, path, idle, done, noView)
	if err != nil {
		return nil, fmt.Errorf("pane %d: %w", i+1, err)
	}
	return cmd, nil
}

// RecordStop stops pane id's recording; done is told once it is flushed.
func (m *Model) RecordStop(id string, done func(string, error)) (tea.Cmd, error) {
	i, p, err := m.find(id)
	if err != nil {
		return nil, err
	}
	if p.recs.rec == nil {
		return nil, fmt.Errorf("pane %d is not recorded: sandmux ctl record start records it", i+1)
	}
	return m.stopRecording(p, "", done, noView), nil
}

// RecordPause pauses (or resumes) pane id's recording and returns its file.
func (m *Model) RecordPause(id string, pause bool) (string, error) {
	i, p, err := m.find(id)
	if err != nil {
		return "", err
	}
	r := &p.recs
	if r.rec == nil {
		return "", fmt.Errorf("pane %d is not recorded: sandmux ctl record start records it", i+1)
	}
	now := m.now()
	switch {
	case pause && r.pausedAt.IsZero():
		r.rec.Pause()
		r.pausedAt = now
	case !pause && !r.pausedAt.IsZero():
		r.rec.Resume()
		r.paused += now.Sub(r.pausedAt)
		r.pausedAt = time.Time{}
	}
	m.redraw = true
	return r.path, nil
}

// RecordMarker adds a marker labelled label to pane id's recording.
func (m *Model) RecordMarker(id, label string) (string, error) {
	i, p, err := m.find(id)
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
func (m *Model) SaveLast(id string, d time.Duration, path string, done func(string, error)) (tea.Cmd, error) {
	i, p, err := m.find(id)
	if err != nil {
		return nil, err
	}
	cmd, err := m.saveLast(p, d, path, done, noView)
	if err != nil {
		return nil, fmt.Errorf("pane %d: %w", i+1, err)
	}
	return cmd, nil
}

// viewClient is the client a view recording names: client, or with 0
// the one that typed last, else the newest.
func (m *Model) viewClient(client int) (int, error) {
	if client != 0 {
		return client, nil
	}
	if m.active != nil && m.active.term != nil {
		return m.active.id, nil
	}
	for i := len(m.views) - 1; i >= 0; i-- {
		if m.views[i].term != nil {
			return m.views[i].id, nil
		}
	}
	return 0, errors.New("no client is attached: a view recording records one (attach with sandmux attach)")
}

// RecordViewStart starts recording client's view (0: the one that typed
// last) to path; done is told the file once it records.
func (m *Model) RecordViewStart(client int, path string, done func(string, error)) (tea.Cmd, error) {
	id, err := m.viewClient(client)
	if err != nil {
		return nil, err
	}
	return m.startViewRecording(id, path, done, noView)
}

// RecordViewStop stops client's view recording (0: the only one, or
// the one of the client that typed last).
func (m *Model) RecordViewStop(client int, done func(string, error)) (tea.Cmd, error) {
	if client == 0 && len(m.rec.views) == 1 {
		for id := range m.rec.views {
			client = id
		}
	}
	id, err := m.viewClient(client)
	if err != nil {
		return nil, err
	}
	switch r, taken := m.rec.views[id]; {
	case taken && r == nil:
		return nil, fmt.Errorf("client %d's view recording is still starting: stop it once it started", id)
	case r == nil:
		return nil, fmt.Errorf("client %d's view is not recorded: sandmux ctl record start --view records it", id)
	}
	return m.stopViewRecording(id, "", done, noView), nil
}

// ShortDuration writes d without the zero units time.Duration.String
// appends ("5m", not "5m0s"): how sandmux writes durations to people.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
