package ssh

import (
	"syscall"
	"time"
)

// A process in the midst of exec reads an empty /proc/PID/environ (the
// kernel sets the new image's environment up last), so a sweep, which
// finds the pane's processes by the marker there, does not see it: a
// pane whose only process was execing was signalled nothing. Where
// finding none cannot be the truth, or would be taken for good, the
// provider sweeps again, further apart each time.
var (
	// signalAgain: while the session runs, its leader at least carries
	// the marker.
	signalAgain = []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond}
	// goneAgain: GroupAlive's "gone" is final.
	goneAgain = []time.Duration{20 * time.Millisecond}
)

// sweepAgain sweeps, and while a sweep finds none of the pane's processes
// (and fails in no other way), waits each of gaps in turn and sweeps
// again. It stops early once stop is closed (nil: never) or the handle
// closes, and returns the last sweep's count and error.
func (h *handle) sweepAgain(sig syscall.Signal, gaps []time.Duration, stop <-chan struct{}) (int, error) {
	n, err := h.sweep(sig)
	for _, gap := range gaps {
		if err != nil || n > 0 {
			break
		}
		if h.sweptNone != nil {
			h.sweptNone()
		}
		t := time.NewTimer(gap)
		select {
		case <-t.C:
		case <-stop:
			t.Stop()
			return n, err
		case <-h.closing:
			t.Stop()
			return n, err
		}
		n, err = h.sweep(sig)
	}
	return n, err
}
