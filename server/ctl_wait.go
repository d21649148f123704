package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/status"
)

// waitTarget is what a wait waits for: a name, and whether it is a phase.
func waitTarget(req control.Request) (name string, phase bool, err error) {
	switch {
	case req.State != "" && req.Phase != "":
		return "", false, errors.New("wait for a state or a phase, not both")
	case req.Phase != "":
		if !slices.Contains(control.WaitPhases, req.Phase) {
			return "", false, fmt.Errorf("cannot wait for phase %s: use one of %s", quote(req.Phase), strings.Join(control.WaitPhases, ", "))
		}
		return req.Phase, true, nil
	case slices.Contains(status.States, status.State(req.State)):
		return req.State, false, nil
	case slices.Contains(control.WaitStates, req.State):
		return req.State, true, nil
	case req.State == "":
		return "", false, errors.New("wait needs a state (waiting, done, ...) or a phase (running, exited, ...)")
	}
	return "", false, fmt.Errorf("cannot wait for state %s: use one of %s", quote(req.State), strings.Join(control.WaitStates, ", "))
}

// stateClosed is the state of a session that is gone from the list: a
// wait for it ends when the pane goes, whether or not the core reported
// the state on the way.
const stateClosed = "closed"

// wait answers once the session reaches req.State. It subscribes before
// its first look, so no change between the look and the subscription is
// missed, then looks again after every event: an event is only a hint
// that something changed, and the core's list is the truth. The session
// is followed by id, since pane numbers shift when a pane closes.
func (h *ctlHandler) wait(ctx context.Context, req control.Request) (control.Reply, error) {
	want, phase, err := waitTarget(req)
	if err != nil {
		return control.Reply{}, err
	}
	sub := h.hub.Subscribe()
	defer func() { sub.Close() }() // sub is replaced when the hub drops it
	si, err := h.resolve(req.Session)
	if err != nil {
		return control.Reply{}, err
	}
	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(time.Duration(req.Timeout))
		defer t.Stop()
		timeout = t.C
	}
	for {
		cur := h.byID(si.ID)
		switch {
		case cur == nil && want == stateClosed:
			si.State = stateClosed
			return control.Reply{Session: &si}, nil
		case cur == nil:
			return control.Reply{}, fmt.Errorf("%s closed before it was %s: nothing is left to wait for; sandmux ctl ls lists the sessions", describe(si), want)
		case phase && cur.Phase == want, !phase && cur.State == want:
			return control.Reply{Session: cur}, nil
		case ended(*cur) && want != stateClosed:
			return control.Reply{}, fmt.Errorf("%s is %s and has nothing running that could become %s: sandmux ctl restart %d starts it again",
				describe(*cur), endedHow(*cur), want, cur.Number)
		}
		si = *cur
		select {
		case <-sub.Events():
			drain(sub)
		case <-sub.Dropped():
			// Too many events at once: look again on a fresh subscription.
			sub.Close()
			sub = h.hub.Subscribe()
		case <-timeout:
			return control.Reply{}, fmt.Errorf("%s was not %s within %s: it is %s; wait longer with --timeout, or look at it with sandmux ctl screen %d",
				describe(si), want, time.Duration(req.Timeout), stateAndPhase(si), si.Number)
		case <-ctx.Done():
			return control.Reply{}, fmt.Errorf("wait for %s to be %s: %w (the client went away or the server is stopping)", describe(si), want, context.Cause(ctx))
		}
	}
}

// ended reports whether the session's process is over for good (until a
// restart): its state and phase change no more, but for its close.
func ended(si control.SessionInfo) bool {
	switch si.Phase {
	case "exited", "killed", "closed", "failed", "disconnected":
		return true
	}
	return false
}

// endedHow is how an ended session ended: where it is, and why.
func endedHow(si control.SessionInfo) string {
	if si.Reason == "" {
		return stateAndPhase(si)
	}
	return stateAndPhase(si) + " (" + si.Reason + ")"
}

// stateAndPhase says where a session is: its state, and its phase when
// it says more ("failed, phase running").
func stateAndPhase(si control.SessionInfo) string {
	if si.Phase == "" || si.Phase == si.State {
		return si.State
	}
	return si.State + ", phase " + si.Phase
}

// drain discards the events already queued, so a burst costs one look.
func drain(sub *control.Subscription) {
	for {
		select {
		case <-sub.Events():
		default:
			return
		}
	}
}
