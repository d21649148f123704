package mux

// Phase is where a pane is in its life, as the shared side sees it.
type Phase int

// The phases, in a pane's order of life.
const (
	PhaseStarting Phase = iota
	PhaseRunning
	PhaseExited
	PhaseClosing
	PhaseKilled
	PhaseClosed
	PhaseFailed
	PhaseCancelled // its start was cancelled (x or k while starting)
)

// phaseNames are the phases as PaneInfo.Phase spells them (a cancelled
// start reads as failed; disconnected is an exited pane whose connection
// dropped, which the pane, not its phase, knows).
var phaseNames = [...]string{
	PhaseStarting: "starting", PhaseRunning: "running", PhaseExited: "exited", PhaseClosing: "closing",
	PhaseKilled: "killed", PhaseClosed: "closed", PhaseFailed: "failed", PhaseCancelled: "failed",
}

// Name is the phase as PaneInfo.Phase spells it.
func (ph Phase) Name() string {
	if ph < 0 || int(ph) >= len(phaseNames) {
		return "unknown"
	}
	return phaseNames[ph]
}
