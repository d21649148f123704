package ui

import (
	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session"
)

// The types the shared side speaks in are package mux's; ui names them
// too, so that New's signature and its callers (package serve, the
// server, tests) read as before.
type (
	Backend      = mux.Backend
	Session      = mux.Session
	PaneInfo     = mux.PaneInfo
	Event        = mux.Event
	EventKind    = mux.EventKind
	Notify       = mux.Notify
	Notification = mux.Notification
	RecordConfig = mux.RecordConfig
	PaneSpec     = mux.PaneSpec
	Result       = mux.Result
)

// The events, the ways of telling, and the phases, as package mux has them.
const (
	EventStarted   = mux.EventStarted
	EventState     = mux.EventState
	EventPhase     = mux.EventPhase
	EventExited    = mux.EventExited
	EventClosed    = mux.EventClosed
	EventSnapshot  = mux.EventSnapshot
	EventAttention = mux.EventAttention
	EventAttached  = mux.EventAttached
	EventDetached  = mux.EventDetached
	EventRecording = mux.EventRecording

	NotifyTerminal = mux.NotifyTerminal
	NotifyBell     = mux.NotifyBell
)

// Phases are every phase PaneInfo.Phase takes (mux.Phases).
var Phases = mux.Phases

// FromManager adapts a session.Manager to a Backend (mux.FromManager).
func FromManager(m *session.Manager) Backend { return mux.FromManager(m) }
