// Package mux is what every client of a sandmux server shares: the
// panes, their lives, states, usage, the quit, what control requests do
// to them, and their recordings. It declares the types that side speaks
// in: the Backend it starts, closes and kills sessions through (the
// session Manager), a pane to open (PaneSpec), where a pane is in its
// life (Phase), what it reports of a pane (PaneInfo, Event, Notification,
// Result), what it tells the views of one (Change) and what it is
// configured with (Config, RecordConfig, Notify). The handlers that act on these still run
// in package ui's shared half (ui/panes.go), which moves here behind the
// same seam.
//
// It must not import package ui, and never edits a client's view: the
// views are told of a pane added, removed, changed or needing attention
// through one interface, declared by the shared side and implemented by
// ui.
package mux
