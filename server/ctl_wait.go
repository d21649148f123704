package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/ui"
)

// WaitStates are the states `ctl wait` may wait for: every
// control.SessionInfo.State (working, waiting, ...) and Phase (running,
// exited, killed, ...) the core reports.
var WaitStates = waitStates()

func waitStates() []string {
	var list []string
	for _, s := range status.States {
		list = append(list, string(s))
	}
	for _, p := range ui.Phases {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
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
	if !slices.Contains(WaitStates, req.State) {
		return control.Reply{}, fmt.Errorf("cannot wait for state %s: use one of %s", quote(req.State), strings.Join(WaitStates, ", "))
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
		case cur == nil && req.State == stateClosed:
			si.State = stateClosed
			return control.Reply{Session: &si}, nil
		case cur == nil:
			return control.Reply{}, fmt.Errorf("%s closed before it was %s: nothing is left to wait for; sandmux ctl ls lists the sessions", describe(si), req.State)
		case cur.State == req.State || cur.Phase == req.State:
			return control.Reply{Session: cur}, nil
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
				describe(si), req.State, time.Duration(req.Timeout), si.State, si.Number)
		case <-ctx.Done():
			return control.Reply{}, fmt.Errorf("wait for %s to be %s: %w (the client went away or the server is stopping)", describe(si), req.State, context.Cause(ctx))
		}
	}
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
