package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
)

// Model is the root model: the panes every attached client shares
// (a mux.Shared) and one view per client (its size, focus, page,
// zoom, modal, scroll and frames). It runs in one loop (the server's;
// Bubble Tea's in the tests);
// the clients' input reaches it as ClientMsg, so all state is touched by
// Update alone.
type Model struct {
	*mux.Shared
	redrawLoop           // when frames are taken (watch.go)
	keys       keyTables // the key bindings, from cfg.Keys and the actions
	// opts is the whole config; the views read their part of it, the
	// shared side its own copy of its part (mux.Config).
	opts Config
	// shownScratch is markShown's map of how panes are on the clients' pages.
	shownScratch map[int]shownAs

	// The clients' views.
	views  []*view
	active *view // the client that typed last: the PTYs follow its sizes
	// layoutW and layoutH size the panes while no client is attached.
	layoutW, layoutH int
	// viewRecs are the view recordings, by client (viewrec.go).
	viewRecs map[int]*viewRec
}

// New returns the root model for the given panes. ctx is the parent of
// everything the model starts; the model cancels its own once it quit.
func New(ctx context.Context, cfg Config, b Backend, specs []PaneSpec) *Model {
	cfg = cfg.withDefaults()
	m := &Model{opts: cfg, keys: newKeyTables(cfg.Prefix, cfg.Keys), layoutW: 80, layoutH: 24}
	m.Shared = mux.NewShared(ctx, cfg.shared(), b, m, specs)
	return m
}

// Init starts nothing: the panes start at StartMsg, or when the first
// client attaches, so every PTY opens at its pane's size.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles a message, then hands each client's new frame to its
// Terminal: composing is CPU work on cached rows; each Terminal's own
// goroutine writes, but for a frame with a key's echo, which the Update
// writes itself when the terminal takes it without waiting
// (term.ShowNow).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.echoOnly, m.echoed, m.echoWritten, m.framed = false, false, false, m.framed[:0]
	typed := m.typedOnly(msg)
	if typed || redrawMsg(msg) {
		// A key typed into a pane, or the redraw loop drawing what
		// panes wrote, feeds those panes' states alone.
		m.NarrowStates()
	}
	cmd := m.update(msg)
	if m.WatchNow() {
		// Between frames nothing watches the screens: the echo of what
		// was just typed (or a new screen's first output) must be seen as
		// soon as it parsed.
		cmd = tea.Batch(cmd, m.watch())
	}
	if after := m.AfterUpdate(len(m.viewRecs) > 0); after != nil {
		cmd = tea.Batch(cmd, after)
	}
	if !typed && !redrawMsg(msg) { // only those change no view's page
		m.markShown()
	}
	if redraw := m.Redrawn(); !m.Done() && (redraw || !(typed || quiet(msg))) {
		for _, v := range m.views {
			v.show()
		}
	}
	return m, cmd
}

// redrawMsg reports whether msg is the redraw loop's own.
func redrawMsg(msg tea.Msg) bool {
	switch msg.(type) {
	case WakeMsg, frameMsg:
		return true
	}
	return false
}

// quiet reports whether msg changes nothing anyone sees unless its
// handler says so (redraw): the redraw loop's own messages, which arrive
// many times a second for a busy pane without always changing a frame.
func quiet(msg tea.Msg) bool {
	return redrawMsg(msg) || mux.Quiet(msg)
}

// update dispatches each message to the code that owns it. Input comes
// only as ClientMsg, from an attached client's view: the program that
// runs the model reads no terminal, so Bubble Tea's own input messages
// never arrive.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ClientMsg:
		v := m.viewByID(msg.ID)
		if v == nil {
			return nil
		}
		return v.input(msg.Msg)
	case AttachMsg:
		return m.attach(msg)
	case DetachMsg:
		return m.detach(msg.ID)
	case StartMsg:
		return m.handleStart(msg)
	case DoMsg:
		return msg.Fn(m)
	case WakeMsg:
		return m.handleWake(msg)
	case frameMsg:
		return m.handleFrame()
	case findTickMsg, findResultsMsg:
		return m.handleFind(msg)
	case viewOpenedMsg:
		return m.viewOpened(msg)
	case QuitMsg:
		return m.quit(msg.Kill)
	}
	cmd, _ := m.Shared.Update(msg)
	if mux.IsUsage(msg) && m.listing() {
		m.Redraw() // the list shows every pane's CPU and memory
	}
	return cmd
}

// QuitMsg asks for a confirmed quit, as SIGTERM does; a second one (or
// Kill) escalates to killing every session now.
type QuitMsg struct{ Kill bool }

// StartMsg starts every pane at the layout of a Width×Height terminal,
// for a server that starts its panes before any client attaches.
type StartMsg struct{ Width, Height int }

// DoMsg runs Fn on the model's loop, for a server's control requests. Fn
// must not block; what it starts reports back through its own means.
type DoMsg struct{ Fn func(*Model) tea.Cmd }

func (m *Model) handleStart(msg StartMsg) tea.Cmd {
	if w, h := fitSize(msg.Width, msg.Height); w > 0 && h > 1 {
		m.layoutW, m.layoutH = w, h
	}
	if m.Started() {
		return nil
	}
	return m.StartAll()
}
