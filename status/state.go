package status

import (
	"fmt"
	"strings"
	"time"
)

// State is what a session is doing, as the user reads it.
type State string

// The states.
const (
	Starting     State = "starting"
	Working      State = "working"
	Idle         State = "idle"
	Waiting      State = "waiting" // it needs the user
	Done         State = "done"    // it exited 0, or said it is done
	Failed       State = "failed"  // it exited non-zero, was killed, or could not start
	Disconnected State = "disconnected"
	Closing      State = "closing"
)

// States lists every state in the order a list of sessions puts them:
// the ones that need the user first.
var States = []State{Waiting, Failed, Working, Idle, Done, Disconnected, Starting, Closing}

// Reportable are the states a report (ctl status) may claim.
var Reportable = []State{Waiting, Working, Idle, Done}

// Attention reports whether entering s marks a session for the user.
func (s State) Attention() bool { return s == Waiting || s == Done || s == Failed }

// Parse returns the state named s.
func Parse(s string) (State, error) {
	for _, st := range States {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q is no state: use one of %s", s, names(States))
}

// ClearReport is what a report says to drop the last one: the other
// signals count again.
const ClearReport = "clear"

// ParseReport returns the state a report names; "" for ClearReport.
func ParseReport(s string) (State, error) {
	if s == ClearReport {
		return "", nil
	}
	for _, st := range Reportable {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q cannot be reported: use one of %s, or %s to drop the last report", s, names(Reportable), ClearReport)
}

func names(states []State) string {
	var b strings.Builder
	for i, s := range states {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(s))
	}
	return b.String()
}

// Status is a session's state as shown: since when, and why.
type Status struct {
	State  State
	Reason string
	Since  time.Time
	// Source is the signal it came from; Life for the process's own.
	Source Source
}

// Source is where a claim on the state comes from, weakest first.
type Source int

// The sources a Tracker weighs, weakest first.
const (
	FromActivity Source = iota
	FromRule
	FromEscape
	FromReport
	Life
	numSources
)

var sourceNames = [numSources]string{"activity", "rule", "escape", "report", "life"}

func (s Source) String() string { return sourceNames[s] }

// MaxReason bounds a reason, in bytes; longer ones are cut at a rune.
const MaxReason = 200

func clip(s string) string {
	if len(s) <= MaxReason {
		return s
	}
	cut := MaxReason
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
