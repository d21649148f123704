package control

import (
	"slices"

	"github.com/sandmux/sandmux/status"
)

// The names some ops take, shared by the server that checks them and the
// client that checks them before asking (sandmux ctl), so that the client
// needs nothing of the server to say what it may ask.

// WaitPhases are the phases `wait --phase` takes, matched against a
// pane's phase alone: every phase a pane passes through, in its order of
// life (mux.Phases; a test of the server holds the two equal).
var WaitPhases = []string{"starting", "running", "exited", "closing", "killed", "closed", "failed", "disconnected"}

// WaitStates are the names `wait --state` takes: every state (working,
// waiting, ...), matched against the state, and the names that are only
// phases (running, exited, killed, closed), matched against the phase. A
// shell whose command failed is in state failed but phase running; a pane
// whose start failed is both.
var WaitStates = waitStates()

func waitStates() []string {
	var states []string
	for _, s := range status.States {
		states = append(states, string(s))
	}
	for _, p := range WaitPhases {
		if !slices.Contains(states, p) {
			states = append(states, p)
		}
	}
	return states
}

// RecordActions are the actions `record` takes.
var RecordActions = []string{"start", "stop", "pause", "resume", "marker"}

// Profiles are the profiles `profile` takes of a running server, without
// rebuilding it: a CPU profile over a window, the runtime's snapshots
// (the live heap after a collection, every allocation since the start,
// the goroutines' stacks), and an execution trace over a window (every
// goroutine's wake-ups and hand-offs: where a key's echo waited). The
// first is the default.
var Profiles = []string{"cpu", "heap", "allocs", "goroutine", "trace"}
