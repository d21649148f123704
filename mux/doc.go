// Package mux is what every client of a sandmux server shares: the
// panes (Pane), their lives, states, usage, the quit, what control
// requests do to them, and their recordings, all held by Shared, whose
// Update handles its own messages and whose methods are all the views may
// call. It declares the types that side speaks in: the Backend it
// starts, closes and kills sessions through (the session Manager), a pane
// to open (PaneSpec), where a pane is in its life (Phase), what it
// reports of a pane (PaneInfo, Event, Notification, Result), what it
// tells the views of one (Change) and what it is configured with
// (Config, RecordConfig, Notify).
//
// It does not own what a client sees: it never edits a view, and tells
// the views of a pane added, removed, changed or needing attention
// through one interface, Views, which package ui implements. It must not
// import package ui nor its subpackages. Like the views, it never blocks
// in Update: whatever blocks runs in a command it returns.
package mux
