package mux

import "time"

// EventKind names what an Event reports.
type EventKind string

// The events a Model reports through Config.Events.
const (
	EventStarted   EventKind = "started"   // a pane's session runs
	EventState     EventKind = "state"     // a pane's state changed (Detail: the new one: working, waiting, ...)
	EventPhase     EventKind = "phase"     // a pane's phase changed (Detail: the new one: running, exited, ...)
	EventExited    EventKind = "exited"    // a pane's command ended
	EventClosed    EventKind = "closed"    // a pane was closed and went
	EventSnapshot  EventKind = "snapshot"  // a teardown's snapshot progressed (Detail) or was saved
	EventAttention EventKind = "attention" // a pane wants attention (bell, notice, silence) in some client
	EventAttached  EventKind = "attached"  // a client attached
	EventDetached  EventKind = "detached"  // a client left
	EventRecording EventKind = "recording" // a recording started or stopped (Detail: which, and its file)
)

// Event is one thing that happened to a pane or a client.
type Event struct {
	Kind   EventKind
	Time   time.Time
	Pane   *PaneInfo // the pane, for pane events
	Client int       // the client, for client events
	Detail string
}
