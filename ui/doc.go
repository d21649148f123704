// Package ui is the Bubble Tea program: the root model, the panes, their
// layout, the key map, overlays, and composing the screen's rendered rows
// with lipgloss chrome.
//
// It owns what the user sees and types. It does not own sessions: it asks
// a Backend (the session Manager) to start, close and kill them, always
// from a tea.Cmd, and never blocks in Update.
//
//	Backend.Start ─► pane (screen + session) ─► sink: parseGate turn (panes on screen first) ─► screen.Write, a slice (16 KiB per 24 rows) a turn
//	watch Cmd: select(screens' Dirty, Backend.Changed, rewire) ─► wakeMsg ─► frame tick (≤ fps)
//	frameMsg: drain dirty ─► Screen.Snapshot ─► vt.RenderRow ─► cached rows ─► View
//	KeyPressMsg ─► prefix? keymap command : encode for the pane's modes ─► Session.Write (non-blocking queue)
//	close / quit ─► Cmd: Backend.Close / Shutdown (blocks until settled) ─► closedMsg / shutdownMsg
//	failed close or kill ─► the pane stays, showing the error, until prefix d; kept for the exit code
//
// An idle program has one goroutine blocked in the watch Cmd and wakes up
// zero times a second.
package ui
