package mux

import "time"

// RecordConfig is what [record] says to the UI.
type RecordConfig struct {
	// Retain is how far back each pane's ring keeps output; 0: no rings.
	Retain time.Duration
	// RetainBytes bounds one ring, RetainTotal every ring together.
	RetainBytes, RetainTotal int
	// SpillDir is where the rings keep their packed past, in files with
	// no name; "" keeps it in memory.
	SpillDir string
	// Dir is where recordings go when no file is given.
	Dir string
	// IdleLimit shortens a recording's pauses longer than it (0: none).
	IdleLimit time.Duration
}
