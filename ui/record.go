package ui

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/record"
	"github.com/sandmux/sandmux/ui/term"
)

// Recording from the live UI (package record does the casts). Every
// pane's screen keeps a ring of its last minutes, all rings within one
// Budget; a pane may be recorded to a file as it goes (prefix R, ctl
// record), its ring saved (prefix S, ctl save-last), and a client's view
// recorded as its terminal is drawn (prefix V, viewrec.go). Files are
// created and written in commands, never in Update: a Recorder writes on
// its own goroutine, and stopping it, which waits for that goroutine,
// runs in a command too. A recording belongs to the pane's screen: it
// ends when the session ends or restarts, and at the quit, which waits
// until every recording is flushed.

// RecordConfig is what [record] says to the UI.
type RecordConfig struct {
	// Retain is how far back each pane's ring keeps output; 0: no rings.
	Retain time.Duration
	// RetainBytes bounds one ring, RetainTotal every ring together.
	RetainBytes, RetainTotal int
	// Dir is where recordings go when no file is given.
	Dir string
	// IdleLimit shortens a recording's pauses longer than it (0: none).
	IdleLimit time.Duration
}

// recState is the model's part of recording: the budget of every ring,
// the view recordings by client, and the errors of recordings stopped.
type recState struct {
	budget    *record.Budget
	views     map[int]*viewRec
	tickArmed bool

	// mu guards what the stopping commands write: errs, for the summary.
	mu   sync.Mutex
	errs []error
	// stops counts the stops under way, for the quit to wait for.
	stops sync.WaitGroup
}

// paneRec is a pane's ring and its recording, if any, for its current
// screen.
type paneRec struct {
	ring     *record.Ring
	rec      *record.Recorder
	opening  bool // a file is being created for a recording
	path     string
	started  time.Time
	pausedAt time.Time     // when paused; zero while it records
	paused   time.Duration // time spent paused, before pausedAt
	markers  int
}

// Messages of the recording commands.
type (
	recTickMsg   struct{}
	recOpenedMsg struct {
		key, gen int
		f        *os.File
		path     string
		idle     time.Duration
		done     func(string, error)
		tell     int // the view to tell, or noView
		err      error
	}
	recNoticeMsg struct {
		view int
		text string
	}
)

// recMsg is any of them, for Update's switch.
type recMsg interface{ recMsg() }

func (recTickMsg) recMsg()   {}
func (recOpenedMsg) recMsg() {}
func (recNoticeMsg) recMsg() {}

// RecordErr joins the errors of the recordings that failed or dropped
// output; sandmux prints them with the exit summary.
func (m *Model) RecordErr() error {
	m.rec.mu.Lock()
	defer m.rec.mu.Unlock()
	return errors.Join(m.rec.errs...)
}

func (m *Model) recordFailed(err error) {
	if err == nil {
		return
	}
	m.rec.mu.Lock()
	m.rec.errs = append(m.rec.errs, err)
	m.rec.mu.Unlock()
}

// attachRing gives pane p's new screen a ring, when rings are on.
func (m *Model) attachRing(p *pane) {
	c := m.cfg.Record
	if c.Retain <= 0 || p.screen == nil {
		return
	}
	if m.rec.budget == nil {
		m.rec.budget = record.NewBudget(c.RetainTotal)
	}
	p.recs.ring = record.NewRing(record.RingOptions{Retain: c.Retain, RetainBytes: c.RetainBytes}, m.rec.budget)
	p.recs.ring.Attach(p.screen)
}

// endScreen ends what recorded pane p's screen, before the screen goes
// (a restart, the pane removed): the recording stops, the ring frees its
// memory, both in a command.
func (m *Model) endScreen(p *pane, why string) tea.Cmd {
	stop := m.stopRecording(p, why, nil, noView)
	ring := p.recs.ring
	p.recs = paneRec{}
	if ring == nil {
		return stop
	}
	return tea.Batch(stop, func() tea.Msg { ring.Close(); return nil })
}

// startRecording opens a cast file for pane p in a command; the recording
// starts once it is open (handleRecord). path "" is a name in the dir.
func (m *Model) startRecording(p *pane, path string, idle time.Duration, done func(string, error), tell int) (tea.Cmd, error) {
	switch {
	case m.quitting:
		return nil, errors.New("the server is quitting: nothing new is recorded")
	case p.recs.rec != nil:
		return nil, fmt.Errorf("it is recorded already, to %s: stop that first", p.recs.path)
	case p.recs.opening:
		return nil, errors.New("its recording is starting already")
	case p.phase != phaseRunning || p.screen == nil:
		return nil, fmt.Errorf("it is %s: only a running pane is recorded", p.status())
	}
	if idle <= 0 {
		idle = m.cfg.Record.IdleLimit
	}
	p.recs.opening = true
	key, gen, dir, name, now := p.key, p.gen, m.cfg.Record.Dir, p.spec.Name, m.now()
	stop := m.stop
	return func() tea.Msg {
		f, path, err := term.CreateCast(dir, path, name, now)
		if dropIfDone(stop, f, path) {
			return nil
		}
		return recOpenedMsg{key: key, gen: gen, f: f, path: path, idle: idle, done: done, tell: tell, err: err}
	}, nil
}

// opened starts the recording whose file is open, unless its pane went
// or changed meanwhile.
func (m *Model) opened(msg recOpenedMsg) tea.Cmd {
	i, p := m.paneByKey(msg.key, msg.gen)
	fail := func(err error) tea.Cmd {
		if msg.done != nil {
			msg.done(msg.path, err)
		}
		m.tell(msg.tell, "not recorded: "+err.Error())
		if msg.f == nil {
			return nil
		}
		f, path := msg.f, msg.path
		return func() tea.Msg { _ = f.Close(); _ = os.Remove(path); return nil } // Best effort: an empty file nobody asked for.
	}
	if p != nil {
		p.recs.opening = false
	}
	switch {
	case msg.err != nil:
		return fail(msg.err)
	case p == nil:
		return fail(errors.New("the pane went away (or restarted) before its recording started"))
	case m.quitting || p.phase != phaseRunning || p.recs.rec != nil:
		return fail(fmt.Errorf("pane %d is %s: only a running pane is recorded", i+1, p.status()))
	}
	h := asciicast.Header{Title: p.spec.Name, Env: map[string]string{"TERM": "xterm-256color"}}
	p.recs.rec = record.Start(p.screen, msg.f, record.RecorderOptions{IdleLimit: msg.idle, Header: h})
	p.recs.path, p.recs.started, p.recs.pausedAt, p.recs.paused, p.recs.markers = msg.path, m.now(), time.Time{}, 0, 0
	m.redraw = true
	m.emit(Event{Kind: EventRecording, Pane: m.paneInfo(i), Detail: "started " + msg.path})
	if msg.done != nil {
		msg.done(msg.path, nil)
	}
	m.tell(msg.tell, "recording to "+msg.path)
	return nil
}

// noView is the view to tell when none is: a ctl request's reply says it.
const noView = -1

// tell shows text in view id's status line until its next key.
func (m *Model) tell(id int, text string) {
	if v := m.viewByID(id); v != nil && id != noView {
		v.notice = text
		m.redraw = true
	}
}

// stopRecording stops pane p's recording in a command, which tells done
// (if set) the file and how writing it ended.
func (m *Model) stopRecording(p *pane, why string, done func(string, error), tell int) tea.Cmd {
	r, path := p.recs.rec, p.recs.path
	if r == nil {
		return nil
	}
	p.recs.rec, p.recs.path = nil, ""
	m.redraw = true
	detail := "stopped " + path
	if why != "" {
		detail += " (" + why + ")"
	}
	if i := m.indexOf(p.key); i >= 0 {
		m.emit(Event{Kind: EventRecording, Pane: m.paneInfo(i), Detail: detail})
	}
	return m.stopping(path, r.Stop, done, tell)
}

// stopping runs stop in a command, counted for the quit to wait for.
func (m *Model) stopping(path string, stop func() error, done func(string, error), tell int) tea.Cmd {
	m.rec.stops.Add(1)
	return func() tea.Msg {
		defer m.rec.stops.Done()
		err := stop()
		if err != nil {
			err = fmt.Errorf("recording %s: %w", path, err)
		}
		m.recordFailed(err)
		if done != nil {
			done(path, err)
		}
		if tell == noView {
			return nil
		}
		if err != nil {
			return recNoticeMsg{view: tell, text: err.Error()}
		}
		return recNoticeMsg{view: tell, text: "recorded to " + path}
	}
}

// syncRecordings, after every Update, stops the recordings of panes
// whose session ended, and keeps the titles' elapsed time ticking while
// anything records.
func (m *Model) syncRecordings() tea.Cmd {
	var cmds []tea.Cmd
	ticking := len(m.rec.views) > 0
	for _, p := range m.panes {
		if p.recs.rec == nil {
			continue
		}
		if p.phase != phaseRunning {
			cmds = append(cmds, m.stopRecording(p, "the session "+stateNames[p.phase], nil, noView))
			continue
		}
		ticking = true
	}
	if ticking && !m.rec.tickArmed && !m.done {
		m.rec.tickArmed = true
		cmds = append(cmds, m.after(time.Second, recTickMsg{}))
	}
	return tea.Batch(cmds...)
}

// handleRecord takes the recording commands' messages.
func (m *Model) handleRecord(msg recMsg) tea.Cmd {
	switch msg := msg.(type) {
	case recTickMsg:
		m.rec.tickArmed = false
		m.redraw = true // the elapsed times move on
	case recOpenedMsg:
		return m.opened(msg)
	case recNoticeMsg:
		m.tell(msg.view, msg.text)
	}
	return nil
}

// stopAllRecordings stops every recording, for the quit; the function
// it returns waits until each is flushed and closed, and every stop
// started before.
func (m *Model) stopAllRecordings() func() {
	var cmds []tea.Cmd
	for _, p := range m.panes {
		cmds = append(cmds, m.stopRecording(p, "the server quit", nil, noView))
	}
	for id := range m.rec.views {
		cmds = append(cmds, m.stopViewRecording(id, "the server quit", nil, noView))
	}
	return func() {
		for _, c := range cmds {
			if c != nil {
				c()
			}
		}
		waited := make(chan struct{})
		go func() { m.rec.stops.Wait(); close(waited) }() // ends once the stops do, bound or not
		t := time.NewTimer(quitFlushBound)
		defer t.Stop()
		select {
		case <-waited:
		case <-t.C:
			m.recordFailed(fmt.Errorf("recordings were still being written after %v: the last of them may be cut short", quitFlushBound))
		}
	}
}

// quitFlushBound bounds how long the quit waits for the recordings: a
// Recorder holds at most a few MiB for its writer.
const quitFlushBound = 30 * time.Second
