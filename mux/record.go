package mux

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/record"
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

// recState is the model's part of recording: the budget of every ring,
// the view recordings by client, and the errors of recordings stopped.
type recState struct {
	budget    *record.Budget
	tickArmed bool
	// viewsRecorded: some client's view is recorded (viewrec.go), so the
	// status lines' elapsed time ticks.
	viewsRecorded bool

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
		tell     int // the view to tell, or NoView
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
func (s *Shared) RecordErr() error {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return errors.Join(s.rec.errs...)
}

func (s *Shared) recordFailed(err error) {
	if err == nil {
		return
	}
	s.rec.mu.Lock()
	s.rec.errs = append(s.rec.errs, err)
	s.rec.mu.Unlock()
}

// attachRing gives pane p's new screen a ring, when rings are on.
func (s *Shared) attachRing(p *Pane) {
	c := s.cfg.Record
	if c.Retain <= 0 || p.screen == nil {
		return
	}
	if s.rec.budget == nil {
		s.rec.budget = record.NewBudget(c.RetainTotal)
	}
	p.recs.ring = record.NewRing(record.RingOptions{Retain: c.Retain, RetainBytes: c.RetainBytes, SpillDir: c.SpillDir, Hold: p.Echoing}, s.rec.budget)
	p.recs.ring.Attach(p.screen)
}

// endScreen ends what recorded pane p's screen, before the screen goes
// (a restart, the pane removed): the recording stops, the ring frees its
// memory, both in a command.
func (s *Shared) endScreen(p *Pane, why string) tea.Cmd {
	stop := s.StopRecordingOf(p, why, nil, NoView)
	ring := p.recs.ring
	p.recs = paneRec{}
	if ring == nil {
		return stop
	}
	return tea.Batch(stop, func() tea.Msg { ring.Close(); return nil })
}

// StartRecordingOf opens a cast file for pane p in a command; the recording
// starts once it is open (handleRecord). path "" is a name in the dir.
func (s *Shared) StartRecordingOf(p *Pane, path string, idle time.Duration, done func(string, error), tell int) (tea.Cmd, error) {
	switch {
	case s.quitting:
		return nil, errors.New("the server is quitting: nothing new is recorded")
	case p.recs.rec != nil:
		return nil, fmt.Errorf("it is recorded already, to %s: stop that first", p.recs.path)
	case p.recs.opening:
		return nil, errors.New("its recording is starting already")
	case p.phase != PhaseRunning || p.screen == nil:
		return nil, fmt.Errorf("it is %s: only a running pane is recorded", p.status())
	}
	if idle <= 0 {
		idle = s.cfg.Record.IdleLimit
	}
	p.recs.opening = true
	key, gen, dir, name, now := p.key, p.gen, s.cfg.Record.Dir, p.spec.Name, s.now()
	stop := s.stop
	return func() tea.Msg {
		f, path, err := CreateCast(dir, path, name, now)
		if DropIfDone(stop, f, path) {
			return nil
		}
		return recOpenedMsg{key: key, gen: gen, f: f, path: path, idle: idle, done: done, tell: tell, err: err}
	}, nil
}

// opened starts the recording whose file is open, unless its pane went
// or changed meanwhile.
func (s *Shared) opened(msg recOpenedMsg) tea.Cmd {
	i, p := s.paneByKey(msg.key, msg.gen)
	fail := func(err error) tea.Cmd {
		if msg.done != nil {
			msg.done(msg.path, err)
		}
		s.Tell(msg.tell, "not recorded: "+err.Error())
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
	case s.quitting || p.phase != PhaseRunning || p.recs.rec != nil:
		return fail(fmt.Errorf("pane %d is %s: only a running pane is recorded", i+1, p.status()))
	}
	h := asciicast.Header{Title: p.spec.Name, Env: map[string]string{"TERM": "xterm-256color"}}
	p.recs.rec = record.Start(p.screen, msg.f, record.RecorderOptions{IdleLimit: msg.idle, Header: h})
	p.recs.path, p.recs.started, p.recs.pausedAt, p.recs.paused, p.recs.markers = msg.path, s.now(), time.Time{}, 0, 0
	s.redraw = true
	s.Emit(Event{Kind: EventRecording, Pane: s.InfoAt(i), Detail: "started " + msg.path})
	if msg.done != nil {
		msg.done(msg.path, nil)
	}
	s.Tell(msg.tell, "recording to "+msg.path)
	return nil
}

// Tell shows text in view id's status line until its next key.
func (s *Shared) Tell(id int, text string) {
	if id != NoView {
		s.clients.Notice(id, text)
	}
}

// StopRecordingOf stops pane p's recording in a command, which tells done
// (if set) the file and how writing it ended.
func (s *Shared) StopRecordingOf(p *Pane, why string, done func(string, error), tell int) tea.Cmd {
	r, path := p.recs.rec, p.recs.path
	if r == nil {
		return nil
	}
	p.recs.rec, p.recs.path = nil, ""
	s.redraw = true
	detail := "stopped " + path
	if why != "" {
		detail += " (" + why + ")"
	}
	if i := s.IndexOf(p.key); i >= 0 {
		s.Emit(Event{Kind: EventRecording, Pane: s.InfoAt(i), Detail: detail})
	}
	return s.Stopping(path, r.Stop, done, tell)
}

// Stopping runs stop in a command, counted for the quit to wait for.
func (s *Shared) Stopping(path string, stop func() error, done func(string, error), tell int) tea.Cmd {
	s.rec.stops.Add(1)
	return func() tea.Msg {
		defer s.rec.stops.Done()
		err := stop()
		if err != nil {
			err = fmt.Errorf("recording %s: %w", path, err)
		}
		s.recordFailed(err)
		if done != nil {
			done(path, err)
		}
		if tell == NoView {
			return nil
		}
		if err != nil {
			return recNoticeMsg{view: tell, text: err.Error()}
		}
		return recNoticeMsg{view: tell, text: "recorded to " + path}
	}
}

// SyncRecordings, after every Update, stops the recordings of panes
// whose session ended, and keeps the titles' elapsed time ticking while
// anything records.
func (s *Shared) SyncRecordings() tea.Cmd {
	var cmds []tea.Cmd
	ticking := s.rec.viewsRecorded
	for _, p := range s.panes {
		if p.recs.rec == nil {
			continue
		}
		if p.phase != PhaseRunning {
			cmds = append(cmds, s.StopRecordingOf(p, "the session "+p.phase.Name(), nil, NoView))
			continue
		}
		ticking = true
	}
	if ticking && !s.rec.tickArmed && !s.done {
		s.rec.tickArmed = true
		cmds = append(cmds, s.After(time.Second, recTickMsg{}))
	}
	return tea.Batch(cmds...)
}

// handleRecord takes the recording commands' messages.
func (s *Shared) handleRecord(msg recMsg) tea.Cmd {
	switch msg := msg.(type) {
	case recTickMsg:
		s.rec.tickArmed = false
		s.redraw = true // the elapsed times move on
	case recOpenedMsg:
		return s.opened(msg)
	case recNoticeMsg:
		s.Tell(msg.view, msg.text)
	}
	return nil
}

// stopAllRecordings stops every pane's recording, for the quit, after
// the views' (views: the commands that stop them); the function
// it returns waits until each is flushed and closed, and every stop
// started before.
func (s *Shared) stopAllRecordings(views []tea.Cmd) func() {
	var cmds []tea.Cmd
	for _, p := range s.panes {
		cmds = append(cmds, s.StopRecordingOf(p, "the server quit", nil, NoView))
	}
	cmds = append(cmds, views...)
	return func() {
		for _, c := range cmds {
			if c != nil {
				c()
			}
		}
		waited := make(chan struct{})
		go func() { s.rec.stops.Wait(); close(waited) }() // ends once the stops do, bound or not
		t := time.NewTimer(quitFlushBound)
		defer t.Stop()
		select {
		case <-waited:
		case <-t.C:
			s.recordFailed(fmt.Errorf("recordings were still being written after %v: the last of them may be cut short", quitFlushBound))
		}
	}
}

// quitFlushBound bounds how long the quit waits for the recordings: a
// Recorder holds at most a few MiB for its writer.
const quitFlushBound = 30 * time.Second

// DropIfDone closes and removes a cast file opened after the model was
// done: no one is left to take its message.
func DropIfDone(stop <-chan struct{}, f io.Closer, path string) bool {
	select {
	case <-stop:
		if f != nil {
			_ = f.Close()
			_ = os.Remove(path)
		}
		return true
	default:
		return false
	}
}
