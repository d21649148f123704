package mux

import (
	"slices"
	"testing"
)

// Every phase a pane can be in reads, in PaneInfo.Phase, as one of the
// Phases the control API documents: a phase added without a name would
// reach clients as "".
func TestPhaseNames(t *testing.T) {
	for ph := PhaseStarting; ph <= PhaseCancelled; ph++ {
		if name := ph.Name(); !slices.Contains(Phases, name) {
			t.Errorf("phase %d reads %q, not one of %v", ph, name, Phases)
		}
	}
	if got := PhaseCancelled.Name(); got != "failed" {
		t.Errorf("a cancelled start reads %q, want failed", got)
	}
	if got := Phase(99).Name(); got != "unknown" {
		t.Errorf("an out-of-range phase reads %q, want unknown", got)
	}
}
