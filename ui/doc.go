// Package ui is the views of sandmux's Bubble Tea model. The Model holds
// the shared side, a mux.Shared (the panes every client shares: their
// sessions, screens and lives, states, usage, recordings, the quit and
// what control requests do), and one view per attached client (view.go):
// its size, focus, page, zoom, modal, scroll, picks and frames, the
// layout, the key map, overlays, and composing each client's screen from
// the panes' rendered rows and their chrome (pen.go). The Model is the shared
// side's mux.Views (views.go): what changed of a pane reaches each view
// there; the views read a pane only through its accessors and reach the
// shared side only through its methods, and never change a pane's life.
//
// It owns what the users see and type. It does not own sessions: it asks
// a Backend (the session Manager) to start, close and kill them, always
// from a tea.Cmd, and never blocks in Update. It does not own how a
// client's bytes travel (package server gives each client a
// term.Terminal, which draws the lines a view composed).
//
//	Backend.Start ─► pane (screen + session) ─► sink: a parsegate turn (panes on some client's screen first) ─► screen.Write, a bounded slice a turn
//	the server's loop (WatchInLoop, Watched), or else the watch Cmd: select(the screens' shared wake, Backend.Changed, stop) ─► WakeMsg ─► frame tick (≤ fps)
//	frameMsg: each dirty screen ─► per view: Screen.Snapshot (changed rows) ─► vt.RenderRow (changed rows) ─► the view's Terminal
//	ClientMsg{key} ─► that view: a bound action (prefix or root table, actions.go) : encode for the pane's modes ─► Session.Write (non-blocking queue)
//	close / quit ─► Cmd: Backend.Close / Shutdown (blocks until settled) ─► closedMsg / shutdownMsg ─► every view
//	failed close or kill ─► the pane stays, showing the error, until prefix x dismisses it; kept for the exit code
//
// An idle model has no timer, and no goroutine but the loop that runs it
// (or the watch Cmd's, under a Bubble Tea program).
package ui
