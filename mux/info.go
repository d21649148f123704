package mux

import (
	"time"
)

// PaneInfo is one pane as a server's control API shows it.
type PaneInfo struct {
	Number   int    // its place in the grid, from 1 (prefix 1…9, ctl)
	ID       string // stable for the pane's life (SANDMUX_PANE)
	Name     string
	Provider string
	// State is the one state a user reads (status.State: working, idle,
	// waiting, done, failed, disconnected, starting, closing); Reason says
	// why and Since since when.
	State  string
	Reason string
	Since  time.Time
	// Phase is where the pane is in its life: starting, running, exited,
	// closing, killed, closed, failed, disconnected.
	Phase      string
	ExitCode   *int
	Started    time.Time
	LastOutput time.Time
	BytesOut   int64 // read from the PTY so far
	PID        int   // 0 when the provider cannot tell
	// CPUPercent (of one core, over the last sample) and RSSBytes are the
	// session's use, when HasUsage says the provider can tell.
	CPUPercent float64
	RSSBytes   int64
	HasUsage   bool
	// Recording is the file the pane is recorded to, "" when it is not.
	Recording string
	// MemBytes is what sandmux holds for the pane: its screen with the
	// scrollback (vt.Screen.MemBytes), the part of its ring of the last
	// minutes in memory (the rest is in the ring's file, [record] spill) and
	// its session's buffers (session.Session.MemBytes).
	// Only Panes fills it in (it walks the scrollback).
	MemBytes int64
}

// Phases are every phase PaneInfo.Phase takes, in a pane's order of life.
var Phases = []string{"starting", "running", "exited", "closing", "killed", "closed", "failed", "disconnected"}
