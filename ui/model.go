package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// Config holds the UI settings.
type Config struct {
	// Prefix is the key that introduces sandmux commands, as Bubble Tea
	// spells it ("ctrl+b").
	Prefix string
	// FPS bounds how often the screen is redrawn.
	FPS int
	// Scrollback is how many lines each pane keeps.
	Scrollback int
	// AttentionAfter marks a pane whose output stopped for this long after
	// activity; zero turns it off.
	AttentionAfter time.Duration
	// Clipboard passes a pane's clipboard writes (OSC 52) on to the
	// user's terminal; a pane's read of the clipboard is never answered.
	Clipboard bool
	// Bell and Notifications say whose bells and notifications (OSC 9,
	// OSC 777) reach the user's terminal: every pane's (PassAny), only
	// those of panes other than the focused one (PassOther), or none
	// (PassNone, the zero value).
	Bell, Notifications Pass
}

// Pass says which panes' signals reach the user's terminal.
type Pass int

// The Pass values, as the config spells them: "none", "other", "any".
const (
	PassNone Pass = iota
	PassOther
	PassAny
)

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = "ctrl+b"
	}
	if c.FPS <= 0 {
		c.FPS = 60
	}
	if c.Scrollback < 0 {
		c.Scrollback = 0
	}
	return c
}

// modal is what, if anything, covers the panes and takes the keys.
type modal int

const (
	modalNone modal = iota
	modalHelp
	modalConfirmQuit
	modalClosing  // a pane is being closed
	modalQuitting // everything is being shut down
)

// Model is the root model.
type Model struct {
	cfg     Config
	backend Backend
	gate    *parseGate // the panes' turns at parsing output
	panes   []*pane
	nextKey int

	width, height int
	focus         int // index into panes
	page          int
	zoom          bool

	started       bool
	prefixPending bool
	broadcast     bool
	modal         modal
	closingKey    int // the pane being closed under modalClosing
	killRequested bool
	scrollMode    bool

	watching       bool
	changedPending bool
	frameArmed     bool
	lastFrame      time.Time
	attnArmed      time.Time
	rewire         chan struct{}
	resizeGen      int
	quitResults    []Result
	teardownErrs   []error // failed closes and kills, for the exit code
	shutdownErr    error
	shutDown       bool // the Manager's Shutdown returned; done once no start is pending
	done           bool

	out         []byte // the view, reused between frames
	now         func() time.Time
	term        *Terminal // draws frames when set; else Bubble Tea does
	cursorColor string    // the cursor colour last set on the terminal ("": its own)
}

// Result is how one session ended, for the summary printed after exit.
type Result struct {
	Name   string
	Status string
	Saved  string // the snapshot written after teardown, if any
	Err    error
}

// New returns the root model for the given panes.
func New(cfg Config, b Backend, specs []PaneSpec) *Model {
	m := &Model{cfg: cfg.withDefaults(), backend: b, gate: newParseGate(), rewire: make(chan struct{}, 1), width: 80, height: 24, now: time.Now}
	for _, s := range specs {
		m.panes = append(m.panes, &pane{key: m.nextKey, spec: s, gate: m.gate})
		m.nextKey++
	}
	return m
}

// Results returns one line of outcome per session, once the program ended.
func (m *Model) Results() []Result { return m.quitResults }

// Init asks for the terminal's size; the panes start once it is known, so
// every PTY opens at its pane's size.
func (m *Model) Init() tea.Cmd { return tea.RequestWindowSize }

func (m *Model) startAll() tea.Cmd {
	m.started = true
	cmds := make([]tea.Cmd, 0, len(m.panes))
	for i := range m.panes {
		cmds = append(cmds, m.startPane(i))
	}
	return tea.Batch(cmds...)
}

// UseTerminal makes the model draw its frames through t, after every
// Update, instead of through Bubble Tea's renderer (see Terminal).
func (m *Model) UseTerminal(t *Terminal) { m.term = t }

// Update handles a message, then hands the new frame to the Terminal when
// there is one: composing is CPU work on cached rows; the Terminal's own
// goroutine writes it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.markShown()
	if m.term != nil && !m.done && m.width > 0 && m.height > 0 {
		lines, cursor := m.frame()
		m.passCursorColor()
		m.term.Show(lines, cursor, m.width)
	}
	return m, cmd
}

// update dispatches each message to the code that owns it.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.setSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.PasteMsg:
		return m.handlePaste(msg.Content)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case tea.FocusMsg, tea.BlurMsg:
		return m.handleFocusReport(msg)
	case wakeMsg:
		return m.handleWake(msg)
	case frameMsg:
		return m.handleFrame()
	case infosMsg:
		return m.handleInfos(msg)
	case startedMsg:
		cmd := m.handleStarted(msg)
		if m.shutDown && !m.done && !m.startsPending() {
			return tea.Batch(cmd, m.finishQuit())
		}
		return cmd
	case closedMsg:
		return m.handleClosed(msg)
	case teardownMsg:
		return m.handleTeardown(msg)
	case resizedMsg, resizePTYMsg:
		return m.handleResize(msg)
	case attentionMsg:
		return m.handleAttention()
	case shutdownMsg:
		return m.handleShutdown(msg)
	case QuitMsg:
		return m.startQuit()
	}
	return nil
}

// QuitMsg asks for a confirmed quit, as SIGTERM and SIGHUP do; a second
// one escalates to killing every session now.
type QuitMsg struct{}

func (m *Model) paneByKey(key, gen int) (int, *pane) {
	for i, p := range m.panes {
		if p.key == key && p.gen == gen {
			return i, p
		}
	}
	return -1, nil
}

func (m *Model) startPane(i int) tea.Cmd {
	p := m.panes[i]
	cmd := p.start(m.backend, m.bodySize(i), m.cfg.Scrollback)
	m.signalRewire()
	return tea.Batch(cmd, m.watch())
}

func (m *Model) handleStarted(msg startedMsg) tea.Cmd {
	i, p := m.paneByKey(msg.key, msg.gen)
	if p == nil {
		if msg.sess != nil {
			// The pane went away while starting: nobody else owns it.
			b, id, key := m.backend, msg.sess.ID(), msg.key
			return func() tea.Msg { return teardownMsg{key: key, err: b.Close(context.Background(), id)} }
		}
		return nil
	}
	closing := m.modal == modalClosing && m.closingKey == p.key
	cancelled := p.startEnded()
	if msg.err != nil {
		p.phase, p.err, p.early = phaseFailed, msg.err, nil
		if cancelled {
			p.phase = phaseCancelled
		}
		if closing {
			m.modal, m.killRequested = modalNone, false
			return m.removePane(i)
		}
		return nil
	}
	p.sess, p.notice = msg.sess, msg.notice
	if cancelled {
		// The start completed before its cancellation reached it: tear
		// the session down as x or k asked.
		p.early = nil
		p.setInfo(msg.sess.Info())
		p.phase = phaseClosing
		return closeSession(m.backend, p, !closing || m.killRequested)
	}
	if len(p.early) > 0 {
		_ = p.sess.Write(p.early) // Best effort, as all input: it only queues.
		p.early = nil
	}
	p.setInfo(msg.sess.Info())
	// The PTY was opened at the size known when the start began; the
	// layout may have changed since.
	size := providers.Size{Cols: uint16(p.frame.Cols), Rows: uint16(p.frame.Rows)}
	sess, key, gen := p.sess, p.key, p.gen
	return func() tea.Msg { return resizedMsg{key: key, gen: gen, err: sess.Resize(size)} }
}

func (m *Model) handleInfos(msg infosMsg) tea.Cmd {
	byID := map[session.ID]session.Info{}
	for _, info := range msg.infos {
		byID[info.ID] = info
	}
	for _, p := range m.panes {
		if p.sess == nil {
			continue
		}
		if info, ok := byID[p.sess.ID()]; ok {
			p.setInfo(info)
		}
	}
	return m.armAttention()
}

// handleClosed: a close (x) removes the pane; a kill (k) leaves it, showing
// that it was killed, to be restarted. A close that failed (its snapshot)
// leaves the pane too, showing why, until the user dismisses it (W6).
func (m *Model) handleClosed(msg closedMsg) tea.Cmd {
	i, p := m.paneByKey(msg.key, msg.gen)
	if p == nil {
		m.failTeardown(nil, "close", msg.err)
		return nil
	}
	p.info, p.err = p.sess.Info(), msg.err
	if m.modal == modalClosing && m.closingKey == p.key {
		m.modal, m.killRequested = modalNone, false
		if msg.err == nil {
			return m.removePane(i)
		}
		p.phase = phaseClosed
		m.failTeardown(p, "close", msg.err)
		return nil
	}
	p.phase = phaseKilled
	m.failTeardown(p, "kill", msg.err)
	return nil
}

func resultOf(p *pane) Result {
	r := Result{Name: p.spec.Name, Err: p.err, Saved: p.info.Saved}
	switch {
	case p.phase == phaseFailed:
		r.Status = "failed to start"
	case p.phase == phaseCancelled:
		r.Status = "start cancelled"
	case p.sess == nil:
		r.Status = "not started"
	case p.info.Disconnected:
		r.Status = "disconnected"
	case p.info.ExitKnown:
		r.Status = p.info.Exit.String()
	case p.info.Killed:
		r.Status = "killed"
	default:
		r.Status = p.info.State.String()
	}
	if n := len(p.info.Survivors); n > 0 {
		// The status above is the command's; its processes did not all go.
		r.Status += fmt.Sprintf(", but %d of its processes survived", n)
	}
	if p.info.Err != nil && r.Err == nil {
		r.Err = p.info.Err
	}
	return r
}

func (m *Model) setSize(w, h int) tea.Cmd {
	if w <= 0 || h <= 1 {
		return nil // no room for a pane and the status line: wait for a real size
	}
	m.width, m.height = w, h
	if !m.started {
		return m.startAll()
	}
	return m.relayout()
}

// relayout resizes every visible pane's emulator now and debounces the
// PTY resizes: a terminal being dragged sends many sizes.
func (m *Model) relayout() tea.Cmd {
	m.resizeGen++
	if n := m.pageSize(); n > 0 {
		m.page = m.focus / n // the page may hold fewer panes now, or none
	}
	for i, p := range m.panes {
		if !m.visible(i) {
			continue
		}
		p.resizeEmulator(m.bodySize(i))
		if p.dirtyPending {
			// Output came while it was off the page.
			p.dirtyPending = false
			p.snapshot()
		}
	}
	gen := m.resizeGen
	return tea.Tick(50*time.Millisecond, func(time.Time) tea.Msg { return resizePTYMsg{gen: gen} })
}

type resizePTYMsg struct{ gen int }

func (m *Model) handleResize(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resizePTYMsg:
		if msg.gen != m.resizeGen {
			return nil
		}
		var cmds []tea.Cmd
		for i, p := range m.panes {
			if m.visible(i) {
				cmds = append(cmds, p.resizePTY())
			}
		}
		return tea.Batch(cmds...)
	case resizedMsg:
		// A failed resize of a closing or gone session is expected; the
		// pane shows its state either way.
	}
	return nil
}

type shutdownMsg struct{ err error }

// startQuit begins the quit: first request shuts everything down, a second
// one escalates to killing every session now.
func (m *Model) startQuit() tea.Cmd {
	if m.modal == modalQuitting {
		if m.killRequested {
			return nil
		}
		m.killRequested = true
		b := m.backend
		return func() tea.Msg { b.KillAll(); return nil }
	}
	m.modal, m.killRequested = modalQuitting, false
	for _, p := range m.panes {
		p.cancel() // a start still preparing is not the Manager's yet
	}
	b := m.backend
	return func() tea.Msg { return shutdownMsg{err: b.Shutdown(context.Background())} }
}

func (m *Model) handleShutdown(msg shutdownMsg) tea.Cmd {
	m.shutdownErr, m.shutDown = msg.err, true
	if m.startsPending() {
		// A start still preparing (a restore) was cancelled by the quit
		// but has not returned: the program ends once it has.
		return nil
	}
	return m.finishQuit()
}

// startsPending reports whether some pane's start has not reported back.
func (m *Model) startsPending() bool {
	for _, p := range m.panes {
		if p.phase == phaseStarting {
			return true
		}
	}
	return false
}

// finishQuit records every pane's outcome and ends the program.
func (m *Model) finishQuit() tea.Cmd {
	for _, p := range m.panes {
		if p.sess != nil {
			p.info = p.sess.Info()
		}
		m.quitResults = append(m.quitResults, resultOf(p))
	}
	m.done = true
	m.signalRewire() // the waiting watch returns, and is not re-armed
	var screens []interface{ Close() }
	for _, p := range m.panes {
		if p.screen != nil {
			screens = append(screens, p.screen)
		}
	}
	return tea.Sequence(func() tea.Msg {
		for _, s := range screens {
			s.Close()
		}
		return nil
	}, tea.Quit)
}

// ShutdownErr is the error of the final shutdown, if any.
func (m *Model) ShutdownErr() error { return m.shutdownErr }

func (r Result) String() string {
	s := fmt.Sprintf("%s: %s", r.Name, r.Status)
	if r.Saved != "" {
		s += ", snapshot " + r.Saved
	}
	if r.Err != nil {
		s += ": " + r.Err.Error()
	}
	return s
}
