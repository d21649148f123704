package mux

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
)

// Each pane's state as the user reads it (package status decides it):
// the model feeds every pane's tracker its signals — the phase, output,
// the marks its screen kept, its screen rules — and, after every Update,
// asks each for its state. A change is an event; a change into waiting,
// done or failed marks the pane for attention in each client that does
// not focus it and notifies as the config says. One timer serves every
// pane: the earliest moment a tracker says it must look again.

// ruleEvery bounds how often a pane's screen rules read its screen.
const ruleEvery = 250 * time.Millisecond

// stateSlack is how late the state timer may fire to take the deadlines
// that follow the earliest one along: 32 shells started together go idle
// within a few tens of milliseconds, and one look at all of them is one
// frame where each would be a frame of its own.
const stateSlack = 100 * time.Millisecond

// stateMsg is the state timer's tick, for the deadline it was armed for.
type stateMsg struct{ at time.Time }

// paneState is what the model keeps of a pane's state.
type paneState struct {
	track  *status.Tracker
	marks  []vt.Mark
	frame  vt.Frame // the screen as the rules last read it
	rows   []string
	ruleAt time.Time // when the rules last read the screen
	// ruleDue: the screen changed since the rules read it; ruleNow: the
	// change drew a key's echo, in Update number ruleNowIn, which
	// rulesNowMsg reads (rulesnow.go); past that Update, were it never
	// delivered, the screen is read as any other.
	ruleDue, ruleNow bool
	ruleNowIn        uint64
	// lifeKey is what the life was last worked out from: syncStates runs
	// after every Update, and only a change of it needs the words again.
	lifeKey lifeKey
}

// lifeKey is what a pane's life (and its words) depends on.
type lifeKey struct {
	phase        Phase
	cancelling   bool
	alert        *alert
	err          error
	state        session.State
	stage        string
	exit         providers.ExitStatus
	exitKnown    bool
	killed       bool
	disconnected bool
}

func (p *Pane) lifeKey() lifeKey {
	i := &p.info
	return lifeKey{p.phase, p.cancelling, p.alert, p.err, i.State, i.Stage, i.Exit, i.ExitKnown, i.Killed, i.Disconnected}
}

// newTracker gives pane p a fresh tracker for its next start, with the
// rules that watch its sandbox and command.
func (s *Shared) newTracker(p *Pane) {
	t := status.NewTracker(s.cfg.Status, s.now())
	var rules []*status.Rule
	for _, r := range s.cfg.Rules {
		if r.AppliesTo(p.sandbox, p.spec.Spec.Command) {
			rules = append(rules, r)
		}
	}
	t.SetRules(rules)
	p.st = paneState{track: t}
}

// state is the pane's state as shown now.
func (p *Pane) state() status.Status {
	if p.st.track == nil {
		return status.Status{State: status.Starting, Source: status.Life}
	}
	return p.st.track.Status()
}

// life is the state the pane's phase gives, or "" while it runs.
func (p *Pane) life() (status.State, string) {
	switch {
	case p.alert != nil:
		return status.Failed, p.alert.what + " failed: " + p.alert.err.Error()
	case p.phase == PhaseStarting:
		return status.Starting, p.status()
	case p.phase == PhaseRunning:
		return "", ""
	case p.phase == PhaseClosing:
		return status.Closing, p.status()
	case p.phase == PhaseExited && p.info.Disconnected:
		return status.Disconnected, "the connection to the sandbox dropped"
	case p.phase == PhaseExited && p.info.ExitKnown && p.info.Exit.ShellCode() == 0:
		return status.Done, p.info.Exit.String()
	case p.phase == PhaseClosed:
		return status.Done, "closed"
	}
	return status.Failed, p.status()
}

// FeedSignals gives pane p's tracker what its screen and session say,
// After its screen changed: output, the marks, and (at most every
// ruleEvery) the screen's last rows for the rules.
func (s *Shared) FeedSignals(p *Pane, now time.Time) {
	t := p.st.track
	if t == nil {
		return
	}
	if p.sess != nil {
		if out := p.sess.LastOutput(); out.After(p.lastOutput) {
			p.lastOutput = out
			t.Active(out, "output")
			p.wakeUsage()
		}
	}
	s.touch(p)
	p.st.marks = p.screen.TakeMarks(p.st.marks[:0])
	for _, mk := range p.st.marks {
		applyMark(t, mk)
	}
	clear(p.st.marks) // the notifications' text goes
	if t.RuleRows() > 0 {
		p.st.ruleDue = true
		if p.Echoing() {
			// Read by a message of its own, whenever the rules read
			// last (rulesNowMsg): keys come at a typist's pace, and a
			// read put off to ruleEvery cost every key a wake-up of the
			// state timer and a sync of every pane; read in this Update,
			// it held the echo's frame on its way to the terminal.
			p.st.ruleNow, p.st.ruleNowIn, s.rulesNow = true, s.updates, true
			return
		}
		s.readRules(p, now)
	}
}

func applyMark(t *status.Tracker, mk vt.Mark) {
	switch mk.Kind {
	case vt.MarkBell:
		t.Bell()
	case vt.MarkNotify:
		t.Notify(mk.Text)
	case vt.MarkProgress:
		t.Progress(mk.State, mk.N)
	case vt.MarkPrompt:
		t.Prompt()
	case vt.MarkCommand:
		t.CommandStart()
	case vt.MarkCommandDone:
		t.CommandDone(mk.N, mk.Known)
	}
}

// readRules gives the rules the screen's last rows, unless they read it
// less than ruleEvery ago (the state timer comes back for it then) or
// the change drew an echo (rulesNowMsg reads it).
func (s *Shared) readRules(p *Pane, now time.Time) {
	if !p.st.ruleDue || p.screen == nil || s.readingEcho(p) || now.Sub(p.st.ruleAt) < ruleEvery {
		return
	}
	s.readScreen(p, now)
}

// readScreen gives the rules the screen's last rows now.
func (s *Shared) readScreen(p *Pane, now time.Time) {
	p.st.ruleDue, p.st.ruleNow, p.st.ruleAt = false, false, now
	p.screen.Snapshot(&p.st.frame)
	p.st.rows = p.st.frame.LastRows(p.st.track.RuleRows(), p.st.rows[:0])
	p.st.track.Screen(p.st.rows, now)
}

// NarrowStates says that this Update feeds the states of some panes
// alone, each told to touch as it is fed: typing into a pane, drawing
// panes' output. The SyncStates after it looks at those panes, not at
// all of them: with 48 panes, looking at every one was a third of a
// key's Update and of its echo's. The others' states change only by
// what they are fed, or at the deadlines the state timer is armed for,
// whose message syncs every pane.
func (s *Shared) NarrowStates() {
	s.narrow, s.touched = true, s.touched[:0]
}

// touch notes that p's state was fed in a narrowed Update.
func (s *Shared) touch(p *Pane) {
	if s.narrow {
		s.touched = append(s.touched, p)
	}
}

// SyncStates brings every pane's state up to date, after an Update (the
// touched panes' after a narrowed one), and arms the state timer for the
// earliest moment one must be looked at.
func (s *Shared) SyncStates() tea.Cmd {
	narrow := s.narrow
	s.narrow = false
	if s.done {
		return nil
	}
	now := s.now()
	var next time.Time
	dues := s.stateDues[:0]
	due := func(at time.Time) {
		if !at.IsZero() {
			dues = append(dues, at)
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	sync := func(i int, p *Pane) {
		t := p.st.track
		if t == nil {
			return
		}
		s.syncPane(i, p, now)
		due(t.Next(now))
		if p.st.ruleDue && !s.readingEcho(p) {
			due(p.st.ruleAt.Add(ruleEvery))
		}
	}
	if narrow {
		for _, p := range s.touched {
			if i := s.IndexOf(p.key); i >= 0 {
				sync(i, p)
			}
		}
		clear(s.touched) // let the panes go
	} else {
		for i, p := range s.panes {
			sync(i, p)
		}
	}
	next = lastWithin(dues, next, stateSlack)
	s.stateDues = dues
	if next.IsZero() || !s.stateArmed().IsZero() && !next.Before(s.stateArmed()) {
		return nil
	}
	// One state timer at a time, moved to an earlier deadline
	// (statetimer.go), so timers cannot pile up while earlier deadlines
	// keep coming.
	return s.armState(next, now)
}

// lastWithin is the latest of dues no later than slack after first.
func lastWithin(dues []time.Time, first time.Time, slack time.Duration) time.Time {
	last := first
	for _, at := range dues {
		if at.After(last) && !at.After(first.Add(slack)) {
			last = at
		}
	}
	return last
}

// syncPane brings pane i's state up to date at now.
func (s *Shared) syncPane(i int, p *Pane, now time.Time) {
	t := p.st.track
	s.readRules(p, now)
	if k := p.lifeKey(); k != p.st.lifeKey || p.st.lifeKey == (lifeKey{}) {
		p.st.lifeKey = k
		t.Life(p.life())
	}
	was := t.Status()
	if st, changed := t.Update(now); changed {
		s.stateChanged(i, p, was, st)
	}
}

// stateChanged reports a pane's new state: its title shows it in every
// client; entering waiting, done or failed asks for the user.
func (s *Shared) stateChanged(i int, p *Pane, was, st status.Status) {
	s.redraw = true
	if st.State == was.State {
		return // a new reason (a progress report's percentage)
	}
	info := s.InfoAt(i)
	s.Emit(Event{Kind: EventState, Pane: info, Detail: string(st.State)})
	if st.State.Attention() && !s.userEnded(p) {
		s.markAttention(p, info)
	}
}

// userEnded reports whether the pane ended because the user (or a
// script) asked: a quit, a close, a kill. Telling them of it is noise.
func (s *Shared) userEnded(p *Pane) bool {
	return s.quitting || p.closing || p.phase == PhaseKilled || p.phase == PhaseCancelled
}

// markAttention has pane p marked in every client that does not focus
// it, and notifies the notify command as the config says; focusing the
// pane clears the mark.
func (s *Shared) markAttention(p *Pane, info *PaneInfo) {
	if !s.clients.NeedsAttention(p, info) {
		return // every client looks at it
	}
	s.Emit(Event{Kind: EventAttention, Pane: info, Detail: info.State + ": " + info.Reason})
	if s.cfg.OnNotify != nil {
		s.cfg.OnNotify(Notification{Pane: *info})
	}
}

// titleState is the state as a pane's title says it: the state, then
// what the phase says while starting, closing or once ended (how it
// exited, what to do next), or else the reason, unless the state comes
// from activity alone (its reason, "output", says nothing the state
// does not).
func (p *Pane) titleState() string {
	st := p.state()
	word := string(st.State)
	switch {
	case st.Source == status.Life:
		if d := p.status(); !strings.HasPrefix(d, word) {
			return word + " · " + d
		}
		return p.status()
	case st.Source == status.FromActivity || st.Reason == "":
		return word
	}
	return word + ": " + st.Reason
}

// answered: the user (or a script, through ctl input) typed into the
// pane, so whatever said it waits has its answer.
func (p *Pane) answered() {
	p.wakeUsage() // what it was asked may keep it busy without a word
	if p.st.track != nil {
		p.st.track.Input()
	}
}

// Report sets a report's claim on the pane's state (ctl status): what an
// agent's hooks say it does; st "" drops the last report. Call it from
// DoMsg.
func (s *Shared) Report(id string, st status.State, reason string, ttl time.Duration) (PaneInfo, error) {
	i, p, err := s.find(id)
	if err != nil {
		return PaneInfo{}, err
	}
	if p.st.track == nil || p.phase != PhaseRunning {
		return PaneInfo{}, fmt.Errorf("pane %d is %s: only a running pane's state can be reported", i+1, p.status())
	}
	now := s.now()
	if st == "" {
		p.st.track.ClearReport()
	} else {
		p.st.track.Report(st, reason, ttl, now)
	}
	s.syncPane(i, p, now) // the reply shows the state reported
	return *s.InfoAt(i), nil
}

// After returns a command that delivers msg after d, or nothing once the
// model is done: not tea.Tick, whose timer would outlive the program.
func (s *Shared) After(d time.Duration, msg tea.Msg) tea.Cmd {
	stop := s.stop
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return msg
		case <-stop:
		}
		return nil
	}
}
