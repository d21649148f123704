package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
)

// The redraw loop. One command (watch) waits on one channel that every
// pane's screen pokes when it changes (vt.WithWake), and on the Backend's
// Changed; it returns a WakeMsg. That arms a frame tick (at most FPS a
// second); the frame asks each screen whether it is dirty, takes new
// frames of those on some client's page, and only then re-arms watch. So
// a pane that writes constantly costs FPS messages a second, not one per
// read, and idle panes cost no wake-up at all (Bubble Tea's own ticker
// aside, which sandmux runs at its lowest rate with nothing to draw).
type (
	// redrawLoop is the loop's state, on the Model.
	redrawLoop struct {
		watching       bool // the watch command waits (or the loop, inLoop)
		inLoop         bool // the loop running the model waits itself (WatchInLoop)
		changedPending bool // the Backend said a session changed: list them at the frame
		frameArmed     bool // a frame is due
		lastFrame      time.Time
		framePanes     int // panes the last frame took anew: its cost, for the next one's wait
		// echoOnly: this Update draws awaited echoes between frames, the
		// panes in framed alone, so the views compose only their lines
		// and titles (compose.go); the next frame brings the rest.
		echoOnly bool
		framed   []int // the keys of the panes this Update took frames of
		// echoed: this Update took the frame of a pane whose echo was
		// awaited, so the views draw it themselves (term.ShowNow);
		// echoWritten: one of them wrote it to its terminal then.
		echoed, echoWritten bool
	}
	// WakeMsg says which signal ended the wait.
	WakeMsg  struct{ Kind WakeKind }
	frameMsg struct{}
	// WakeKind is one of the signals the redraw loop waits on.
	WakeKind int
)

// The signals, as Watched gives them.
const (
	WakeStop WakeKind = iota
	WakeChanged
	WakeDirty
)

// WatchInLoop says that the loop running the model waits on the redraw
// loop's signals itself, as Watched gives them, and delivers a WakeMsg
// for the one that came: watch then arms no command (the server's core
// does, so an echo reaches the model with no goroutine between).
// echoParsed, when set, is called by the goroutine that parsed the
// output of a pane whose echo is awaited (mux.Shared.SetEchoParsed): the
// loop delivers the wake from there when the model is free, so the echo
// is drawn with no hand-off at all.
func (m *Model) WatchInLoop(echoParsed func() bool) {
	m.inLoop = true
	m.SetEchoParsed(echoParsed)
}

// EchoWritten says whether the last Update wrote a key's echo to some
// client's terminal itself: the kernel carries it on from there, and the
// loop running the model steps aside for that once it let the model go.
func (m *Model) EchoWritten() bool { return m.echoWritten }

// Watched is what the redraw loop waits on now: the screens' wake, the
// Backend's Changed and the quit's stop; nil channels while it waits on
// nothing (a frame is due, or the model is done).
func (m *Model) Watched() (wake, changed, stop <-chan struct{}) {
	if !m.watching {
		return nil, nil, nil
	}
	return m.Wake(), m.Backend().Changed(), m.Stop()
}

// watch returns the command that waits for the next change, unless one is
// already waiting.
func (m *Model) watch() tea.Cmd {
	if m.watching || m.Done() {
		return nil
	}
	m.watching = true
	if m.inLoop {
		return nil
	}
	wake, changed, stop := m.Wake(), m.Backend().Changed(), m.Stop()
	return func() tea.Msg {
		// The receive consumed the signal: the message carries it instead.
		select {
		case <-wake:
			return WakeMsg{Kind: WakeDirty}
		case <-changed:
			return WakeMsg{Kind: WakeChanged}
		case <-stop:
			return WakeMsg{Kind: WakeStop}
		}
	}
}

func (m *Model) handleWake(msg WakeMsg) tea.Cmd {
	m.watching = false
	switch msg.Kind {
	case WakeStop:
		return nil
	case WakeChanged:
		m.changedPending = true
	}
	if m.frameArmed {
		// While an echo is awaited the loop keeps watching between
		// frames, so the echo is drawn the moment it parsed.
		m.echoOnly = true
		if m.drawEchoes(m.Now()) {
			return m.watch()
		}
		return nil
	}
	m.frameArmed = true
	// Leading edge: after a quiet spell the frame comes at once (a typed
	// key's echo is not held back); within a frame interval of the last
	// one it waits out the rest, so frames stay at most FPS a second.
	var frame tea.Cmd
	switch wait, end := m.lastFrame.Add(m.frameInterval()).Sub(m.Now()), m.TickEnd(); {
	case wait > 0:
		frame = tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} })
	case end != nil:
		// A pacing tick is delivering the panes on screen one after
		// another: the frame waits for the rest of them, so one frame
		// shows the tick (an echo is still drawn at once, below).
		frame = afterTick(end, m.Stop())
	default:
		// Drawn in this Update: a frame message would cost a goroutine
		// and a trip through the program's queue on every echo.
		return m.handleFrame()
	}
	m.echoOnly = true
	if m.drawEchoes(m.Now()) {
		return tea.Batch(frame, m.watch())
	}
	return frame
}

// afterTick is the frame once the pacing tick in progress ended (or the
// model is done).
func afterTick(end, stop <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-end:
		case <-stop:
		}
		return frameMsg{}
	}
}

// handleFrame drains every signal and takes new frames of the panes that
// changed, for each client that shows them.
func (m *Model) handleFrame() tea.Cmd {
	m.frameArmed = false
	now := m.Now()
	m.lastFrame = now
	m.framePanes = 0
	var cmds []tea.Cmd
	select {
	case <-m.Wake():
	default:
	}
	select {
	case <-m.Backend().Changed():
		m.changedPending = true
	default:
	}
	if m.changedPending {
		m.changedPending = false
		cmds = append(cmds, m.ListInfos())
	}
	for i, p := range m.Grid() {
		if p.Screen() == nil {
			continue
		}
		select {
		case <-p.Screen().Dirty():
		default:
			m.echoExpired(p, now)
			continue
		}
		m.paneFrame(i, p, now)
	}
	cmds = append(cmds, m.watch())
	return tea.Batch(cmds...)
}

// paneFrame takes pane i's new frame for every client that shows it.
func (m *Model) paneFrame(i int, p *mux.Pane, now time.Time) {
	// The state follows output and marks, not redraws (a resize
	// redraws too).
	m.FeedSignals(p, now)
	m.passThrough(i, p)
	m.screenChanged(p)
	m.Redraw()
	m.Wrote()
	m.framePanes++
	m.framed = append(m.framed, p.Key())
	m.echoed = m.echoed || p.Echoing()
	p.EchoDrawn()
}

// The frame budget: a frame costs about framePaneCost for each pane it
// takes anew (a snapshot, its changed rows rendered, the lines composed
// and sent to every client), so the frames after one that took many
// panes wait that long, down to minFPS: 48 busy panes are drawn 20 times
// a second rather than 60, which cut the server's CPU by a quarter,
// while a few busy panes keep the configured rate. The pane a key was
// typed into is drawn at once whatever the budget (drawEchoes).
const (
	framePaneCost = time.Second / 1000
	minFPS        = 10
)

// frameInterval is the least time from the last frame to the next.
func (m *Model) frameInterval() time.Duration {
	d := time.Second / time.Duration(m.opts.FPS)
	budget := min(time.Duration(m.framePanes)*framePaneCost, time.Second/minFPS)
	return max(d, budget)
}

// A key is answered first: the pane a key was typed into parses before
// the others (the parse gate) and, once its screen changed, is drawn in
// the Update that notices, between the frames of the others (which stay
// at most FPS a second). Its wait ends with that drawing or after
// echoWait, for a key that changes nothing.
const echoWait = 250 * time.Millisecond

// drawEchoes draws the awaited panes whose screens changed, and reports
// whether some echo is still awaited.
func (m *Model) drawEchoes(now time.Time) bool {
	waiting := false
	for i, p := range m.Grid() {
		if !p.Echoing() || p.Screen() == nil || m.echoExpired(p, now) {
			continue
		}
		select {
		case <-p.Screen().Dirty():
			m.paneFrame(i, p, now)
		default:
			waiting = true
		}
	}
	return waiting
}

// echoExpired ends p's wait for an echo that did not come in time.
func (m *Model) echoExpired(p *mux.Pane, now time.Time) bool {
	if p.Echoing() && now.Sub(p.EchoAt()) >= echoWait {
		p.EchoDrawn()
		return true
	}
	return false
}
