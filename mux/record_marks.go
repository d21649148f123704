package mux

// The small parts of recording: its marks in titles, and a file opened
// too late.

import (
	"fmt"
	"time"
)

// RecMark is the pane's recording mark for its title, "" when none.
func (p *Pane) RecMark(now time.Time) string {
	r := &p.recs
	switch {
	case r.rec != nil && !r.pausedAt.IsZero():
		return "❚❚ REC " + Clock(r.pausedAt.Sub(r.started)-r.paused) + " paused"
	case r.rec != nil:
		return "REC " + Clock(now.Sub(r.started)-r.paused)
	case r.opening:
		return "REC starting"
	}
	return ""
}

// Clock writes d as mm:ss, or h:mm:ss past an hour.
func Clock(d time.Duration) string {
	s := int(max(d, 0) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
