package ui

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
	// scrollback (vt.Screen.MemBytes) and its ring of the last minutes.
	// Only Panes fills it in (it walks the scrollback).
	MemBytes int64
}

// Phases are every phase PaneInfo.Phase takes, in a pane's order of life.
var Phases = []string{"starting", "running", "exited", "closing", "killed", "closed", "failed", "disconnected"}

// stateNames are the states a pane reports, by phase (disconnected is an
// exited pane whose connection dropped).
var stateNames = map[phase]string{
	phaseStarting: "starting", phaseRunning: "running", phaseExited: "exited", phaseClosing: "closing",
	phaseKilled: "killed", phaseClosed: "closed", phaseFailed: "failed", phaseCancelled: "failed",
}

// paneInfo is pane i as PaneInfo.
func (s *shared) paneInfo(i int) *PaneInfo {
	p := s.panes[i]
	info := &PaneInfo{Number: i + 1, ID: p.ID(), Name: p.spec.Name, Provider: p.spec.Provider, Phase: stateNames[p.phase],
		Started: p.info.Started, LastOutput: p.info.LastOutput}
	if p.sess != nil {
		// The session's counters now, not as of the last list.
		live := p.sess.Info()
		info.LastOutput, info.BytesOut, info.PID = live.LastOutput, live.BytesOut, live.PID
	}
	if p.phase == phaseExited && p.info.Disconnected {
		info.Phase = "disconnected"
	}
	if p.info.ExitKnown && p.phase != phaseFailed && p.phase != phaseCancelled {
		code := p.info.Exit.ShellCode()
		info.ExitCode = &code
	}
	st := p.state()
	info.State, info.Reason, info.Since = string(st.State), st.Reason, st.Since
	info.CPUPercent, info.RSSBytes, info.HasUsage = p.usageNow()
	if p.recs.rec != nil {
		info.Recording = p.recs.path
	}
	return info
}

// Panes lists every pane, in grid order. Call it from DoMsg.
func (s *shared) Panes() []PaneInfo {
	out := make([]PaneInfo, 0, len(s.panes))
	for i, p := range s.panes {
		info := s.paneInfo(i)
		if p.screen != nil {
			info.MemBytes = p.screen.MemBytes()
		}
		if p.recs.ring != nil {
			info.MemBytes += int64(p.recs.ring.Bytes())
		}
		out = append(out, *info)
	}
	return out
}
