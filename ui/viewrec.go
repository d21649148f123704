package ui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/ui/term"
)

// Recording a client's view (prefix V, ctl record --view): the cast file
// is created in a command, then the view's Terminal records what it
// draws (package term).

// viewRec is one view's recording and what its status line shows.
type viewRec struct {
	rec     *term.Recording
	path    string
	started time.Time // wall time it was asked for, for the status line
}

// startViewRecording opens a cast file for client id's view in a
// command; the recording starts once it is open.
func (m *Model) startViewRecording(id int, path string, done func(string, error), tell int) (tea.Cmd, error) {
	v := m.viewByID(id)
	switch {
	case m.Quitting():
		return nil, errors.New("the server is quitting: nothing new is recorded")
	case v == nil || v.term == nil:
		return nil, fmt.Errorf("no client %d is attached: sandmux ctl ls counts them", id)
	}
	if r, taken := m.viewRecs[id]; taken {
		if r == nil {
			return nil, fmt.Errorf("client %d's view recording is starting already", id)
		}
		return nil, fmt.Errorf("client %d's view is recorded already, to %s: stop that first", id, r.path)
	}
	if m.viewRecs == nil {
		m.viewRecs = map[int]*viewRec{}
	}
	m.viewRecs[id] = nil // opening: taken, so a second start is refused
	dir, now, stop := m.opts.Record.Dir, m.Now(), m.Stop()
	return func() tea.Msg {
		f, path, err := mux.CreateCast(dir, path, fmt.Sprintf("view-%d", id), now)
		if mux.DropIfDone(stop, f, path) {
			return nil
		}
		return viewOpenedMsg{id: id, term: v.term, f: f, path: path, done: done, tell: tell, err: err}
	}, nil
}

type viewOpenedMsg struct {
	id   int
	term *term.Terminal
	f    io.WriteCloser
	path string
	done func(string, error)
	tell int
	err  error
}

func (m *Model) viewOpened(msg viewOpenedMsg) tea.Cmd {
	v := m.viewByID(msg.id)
	err := msg.err
	r, opening := m.viewRecs[msg.id]
	switch {
	case err != nil:
	case v == nil || v.term != msg.term || m.Quitting():
		err = fmt.Errorf("client %d left before its recording started", msg.id)
	case !opening || r != nil:
		err = fmt.Errorf("client %d's view recording was stopped before it started", msg.id)
	}
	if err != nil {
		if opening && r == nil {
			delete(m.viewRecs, msg.id)
		}
		if msg.done != nil {
			msg.done(msg.path, err)
		}
		m.Tell(msg.tell, "not recorded: "+err.Error())
		if f, path := msg.f, msg.path; f != nil {
			// Nothing was written: the empty file goes too.
			return func() tea.Msg { _ = f.Close(); _ = os.Remove(path); return nil }
		}
		return nil
	}
	m.viewRecs[msg.id] = &viewRec{rec: v.term.Record(msg.f), path: msg.path, started: m.Now()}
	m.Redraw()
	m.Emit(Event{Kind: EventRecording, Client: msg.id, Detail: fmt.Sprintf("started client %d's view: %s", msg.id, msg.path)})
	if msg.done != nil {
		msg.done(msg.path, nil)
	}
	m.Tell(msg.tell, "recording this view to "+msg.path)
	return nil
}

// stopViewRecording stops client id's view recording in a command.
func (m *Model) stopViewRecording(id int, why string, done func(string, error), tell int) tea.Cmd {
	r, taken := m.viewRecs[id]
	if taken && r == nil {
		delete(m.viewRecs, id) // still opening: viewOpened drops the file
		return nil
	}
	if r == nil {
		return nil
	}
	delete(m.viewRecs, id)
	r.rec.End() // the frame shown after this Update, without the mark, ends the cast
	m.Redraw()
	detail := fmt.Sprintf("stopped client %d's view: %s", id, r.path)
	if why != "" {
		detail += " (" + why + ")"
	}
	m.Emit(Event{Kind: EventRecording, Client: id, Detail: detail})
	return m.Stopping(r.path, r.rec.Stop, done, tell)
}

// viewRecMark is the status line's mark of this view's recording.
func (v *view) viewRecMark() string {
	r := v.m.viewRecs[v.id]
	if r == nil {
		return ""
	}
	return "REC VIEW " + mux.Clock(v.m.Now().Sub(r.started))
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
	return m.startViewRecording(id, path, done, mux.NoView)
}

// RecordViewStop stops client's view recording (0: the only one, or
// the one of the client that typed last).
func (m *Model) RecordViewStop(client int, done func(string, error)) (tea.Cmd, error) {
	if client == 0 && len(m.viewRecs) == 1 {
		for id := range m.viewRecs {
			client = id
		}
	}
	id, err := m.viewClient(client)
	if err != nil {
		return nil, err
	}
	switch r, taken := m.viewRecs[id]; {
	case taken && r == nil:
		return nil, fmt.Errorf("client %d's view recording is still starting: stop it once it started", id)
	case r == nil:
		return nil, fmt.Errorf("client %d's view is not recorded: sandmux ctl record start --view records it", id)
	}
	return m.stopViewRecording(id, "", done, mux.NoView), nil
}
