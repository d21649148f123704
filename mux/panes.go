package mux

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/parsegate"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// Shared is the side every client shares: the panes, their lives
// (lifecycle.go), states (state.go), usage (usage.go), recordings
// (record.go, record_ctl.go), the quit (quit.go) and what control
// requests do (control.go). It never edits a view: it tells the views
// what changed through Views, and they read it through its methods.
type Shared struct {
	cfg Config
	now func() time.Time
	// ctx is the parent of the starts' contexts; cancel ends it at quit.
	ctx    context.Context
	cancel context.CancelFunc
	// clients are the views, as the shared side reaches them.
	clients Views

	backend   Backend
	gate      *parsegate.Gate // the panes' turns at parsing output
	panes     []*Pane
	nextKey   int
	started   bool
	resizeGen int      // the debounced PTY resize that is current
	theme     vt.Theme // the colours the screens answer with: the active client's, as the views set them (SetTheme)
	// redraw: a quiet message changed what some client sees.
	redraw bool
	// watchNow: a key was typed into a pane, or a pane has a new screen,
	// in this Update: the redraw loop must be watching once it ends.
	watchNow bool

	stateTimer *stateTimer // the one state timer (statetimer.go); nil when none waits
	stateDues  []time.Time // SyncStates' scratch: the deadlines it saw
	rulesNow   bool        // some pane's rules are to read an echo (rulesnow.go)
	updates    uint64      // the Updates ended (AfterUpdate), for paneState.ruleNowIn
	// narrow: this Update fed the states of the touched panes alone (a
	// key typed, panes' output drawn), so SyncStates looks at those.
	narrow      bool
	touched     []*Pane
	usageArmed  bool          // a usage sample is due (usage.go)
	usageGen    int           // the current usage timer's
	usageIdle   int           // rounds in a row in which no pane was busy or wrote
	usageOutput bool          // some pane wrote since the last round
	wake        chan struct{} // every screen pokes it (vt.WithWake)
	// echoParsed, when set, is called by the goroutine that parsed a
	// pane's output while its echo is awaited (SetEchoParsed).
	echoParsed func() bool
	stop       chan struct{} // closed once done: the watch returns

	rec recState // the rings' budget, and the recordings being stopped (record.go)

	// The quit (quit.go) and what it reports.
	quitting      bool
	killRequested bool // the quit escalated to killing everything
	shutDown      bool // the Manager's Shutdown returned; done once no start is pending
	done          bool
	quitResults   []Result
	teardownErrs  []error // failed closes and kills, for the exit code
	shutdownErr   error
}

// Views is what the shared side tells the clients' views, the one
// way it reaches them (ui's Model implements it over its views): a pane added, removed or changed, a pane that needs
// attention, and the quit settled; and the two things it asks of them.
type Views interface {
	// PaneAdded: pane p joined the grid (ctl run, prefix c); each view
	// lays itself out again.
	PaneAdded(p *Pane) tea.Cmd
	// PaneRemoved: pane key, which stood at index i, left the grid.
	PaneRemoved(key, i int) tea.Cmd
	// PaneChanged: what c says changed of pane p.
	PaneChanged(p *Pane, c Change)
	// NeedsAttention: pane p entered waiting, done or failed; each view
	// that does not focus it marks and tells it. It reports whether some
	// view did (or none is attached: nobody saw it).
	NeedsAttention(p *Pane, info *PaneInfo) (away bool)
	// Settled: the quit settled; each view stops what it records, in the
	// commands returned, before the program ends.
	Settled() []tea.Cmd

	// BodySize is the size pane i's screen starts at: the sizing view's
	// layout of it.
	BodySize(i int) providers.Size
	// Notice shows text in client id's status line until its next key
	// (NoView: nobody's).
	Notice(id int, text string)
}

// addPane puts a pane for spec at the end of the grid, not started.
func (s *Shared) addPane(spec PaneSpec) *Pane {
	p := &Pane{key: s.nextKey, gate: s.gate, sandbox: spec.Name}
	spec.Name = s.uniqueName(spec.Name, nil)
	p.spec = spec
	s.newTracker(p)
	s.nextKey++
	s.panes = append(s.panes, p)
	return p
}

// Results returns one line of outcome per session, once the program ended.
func (s *Shared) Results() []Result { return s.quitResults }

// InfoAt is pane i as PaneInfo.
func (s *Shared) InfoAt(i int) *PaneInfo {
	p := s.panes[i]
	info := &PaneInfo{Number: i + 1, ID: p.ID(), Name: p.spec.Name, Provider: p.spec.Provider, Phase: p.phase.Name(),
		Started: p.info.Started, LastOutput: p.info.LastOutput}
	if p.sess != nil {
		// The session's counters now, not as of the last list.
		live := p.sess.Info()
		info.LastOutput, info.BytesOut, info.PID = live.LastOutput, live.BytesOut, live.PID
	}
	if p.phase == PhaseExited && p.info.Disconnected {
		info.Phase = "disconnected"
	}
	if p.info.ExitKnown && p.phase != PhaseFailed && p.phase != PhaseCancelled {
		code := p.info.Exit.ShellCode()
		info.ExitCode = &code
	}
	st := p.state()
	info.State, info.Reason, info.Since = string(st.State), st.Reason, st.Since
	info.CPUPercent, info.RSSBytes, info.HasUsage = p.usageNow()
	if p.recs.rec != nil {
		info.Recording = p.recs.path
	}
	return info
}

// Panes lists every pane, in grid order. Call it from DoMsg.
func (s *Shared) Panes() []PaneInfo {
	out := make([]PaneInfo, 0, len(s.panes))
	for i, p := range s.panes {
		info := s.InfoAt(i)
		if p.screen != nil {
			info.MemBytes = p.screen.MemBytes()
		}
		if p.recs.ring != nil {
			info.MemBytes += int64(p.recs.ring.Resident())
		}
		if p.sess != nil {
			info.MemBytes += p.sess.MemBytes()
		}
		out = append(out, *info)
	}
	return out
}

// Send writes encode's bytes, for the pane's current modes, to its
// session; it reports whether anything was sent or kept for later.
func (s *Shared) Send(p *Pane, encode func(vt.Modes) []byte) bool {
	if p.screen == nil || (p.sess == nil && p.phase != PhaseStarting) {
		return false
	}
	b := encode(p.screen.Modes())
	if len(b) == 0 {
		return false
	}
	s.touch(p) // the caller tells its tracker of the input (Answered)
	if p.sess == nil {
		// The session runs (its output may show) before the model learns
		// of it: keep what is typed meanwhile, in order.
		if len(p.early)+len(b) <= maxEarlyInput {
			p.early = append(p.early, b...)
		}
		return true
	}
	// The echo is awaited before the key is written: a child that echoes
	// before this goroutine runs on finds it awaited, and parses first.
	s.awaitEcho(p)
	_ = p.sess.Write(b) // Best effort: a full or closed queue is the pane's state, shown in its title.
	return true
}

// awaitEcho notes that a key was typed into p: the redraw loop draws its
// echo first (ui's watch.go).
func (s *Shared) awaitEcho(p *Pane) {
	p.echoAt = s.now()
	p.echo.Store(true) // its reader is not paced (its session hurries it once the key is written)
	s.watchNow = true
}

func (s *Shared) paneByKey(key, gen int) (int, *Pane) {
	for i, p := range s.panes {
		if p.key == key && p.gen == gen {
			return i, p
		}
	}
	return -1, nil
}

func (s *Shared) IndexOf(key int) int {
	for i, p := range s.panes {
		if p.key == key {
			return i
		}
	}
	return -1
}

// Emit tells the Events hook, if any, what happened.
func (s *Shared) Emit(e Event) {
	if s.cfg.Events != nil {
		e.Time = s.now()
		s.cfg.Events(e)
	}
}
