package server

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/ui"
)

// waitResult is one wait's answer, from the goroutine that asked.
type waitResult struct {
	rep control.Reply
	err error
}

// startWait sends a wait on its own connection and returns its answer's
// channel once the handler has looked twice (resolved the session and
// checked its state), so it is about to block on the hub.
func (h *harness) startWait(t *testing.T, ctx context.Context, req control.Request) <-chan waitResult {
	t.Helper()
	c := h.dial(t)
	h.drainLooks()
	out := make(chan waitResult, 1)
	go func() {
		rep, err := c.Call(ctx, req)
		out <- waitResult{rep, err}
	}()
	for range 2 {
		select {
		case <-h.core.looked:
		case r := <-out:
			t.Fatalf("wait answered before blocking: %+v, %v", r.rep, r.err)
		}
	}
	return out
}

func (h *harness) drainLooks() {
	for {
		select {
		case <-h.core.looked:
		default:
			return
		}
	}
}

func TestCtlWaitReachesStateAfterAnEvent(t *testing.T) {
	h := serve(t)
	out := h.startWait(t, t.Context(), control.Request{Op: control.OpWait, Session: "2", State: "exited"})
	h.core.setState("a1", "failed") // another pane: the wait looks and goes on waiting
	<-h.core.looked
	h.core.setState("b2", "exited")
	r := <-out
	if r.err != nil || r.rep.Session == nil || r.rep.Session.ID != "b2" || r.rep.Session.State != "exited" {
		t.Fatalf("wait: got %+v, %v; want pane b2 exited", r.rep.Session, r.err)
	}
}

func TestCtlWaitAlreadyThere(t *testing.T) {
	h := serve(t)
	rep := h.must(t, control.Request{Op: control.OpWait, Session: "3", State: "exited"})
	if rep.Session == nil || rep.Session.ID != "c3" {
		t.Errorf("wait for a state already reached: got %+v, want pane c3 at once", rep.Session)
	}
}

func TestCtlWaitFollowsTheIDAcrossRenumbering(t *testing.T) {
	h := serve(t)
	out := h.startWait(t, t.Context(), control.Request{Op: control.OpWait, Session: "2", State: "killed"})
	h.core.remove("a1") // pane 2 becomes pane 1
	<-h.core.looked
	h.core.setState("c3", "killed") // now pane 2, but not the one waited for
	<-h.core.looked
	h.core.setState("b2", "killed")
	r := <-out
	if r.err != nil || r.rep.Session == nil || r.rep.Session.ID != "b2" || r.rep.Session.Number != 1 {
		t.Fatalf("wait: got %+v, %v; want b2, now pane 1", r.rep.Session, r.err)
	}
}

func TestCtlWaitForClosed(t *testing.T) {
	h := serve(t)
	out := h.startWait(t, t.Context(), control.Request{Op: control.OpWait, Session: "a1", State: "closed"})
	h.core.remove("a1")
	r := <-out
	if r.err != nil || r.rep.Session == nil || r.rep.Session.ID != "a1" || r.rep.Session.State != "closed" {
		t.Fatalf("wait for closed: got %+v, %v; want a1 closed", r.rep.Session, r.err)
	}
	out = h.startWait(t, t.Context(), control.Request{Op: control.OpWait, Session: "b2", State: "exited"})
	h.core.remove("b2")
	r = <-out
	if r.err == nil || !strings.Contains(r.err.Error(), `pane 1 ("web") closed before it was exited: nothing is left to wait for`) {
		t.Fatalf("wait for a pane that closed: %v, want an error saying it closed", r.err)
	}
}

func TestCtlWaitTimeout(t *testing.T) {
	h := serve(t)
	_, err := h.call(t, control.Request{Op: control.OpWait, Session: "1", State: "exited", Timeout: control.Duration(20 * time.Millisecond)})
	if err == nil || !strings.Contains(err.Error(), `pane 1 ("web") was not exited within 20ms: it is running; wait longer with --timeout`) {
		t.Fatalf("wait timeout: %v, want an error saying what it is and what to do", err)
	}
	if n := h.hub.Subscribers(); n != 0 {
		t.Errorf("after a timed-out wait, %d hub subscribers are left, want 0", n)
	}
}

func TestCtlWaitRefusals(t *testing.T) {
	h := serve(t)
	_, err := h.call(t, control.Request{Op: control.OpWait, Session: "1", State: "busy"})
	if err == nil || !strings.Contains(err.Error(), `cannot wait for state "busy": use one of waiting, failed, working, idle, done`) ||
		!strings.Contains(err.Error(), "running, exited") {
		t.Errorf("wait for an unknown state: %v, want one listing the states", err)
	}
	_, err = h.call(t, control.Request{Op: control.OpWait, Session: "web", State: "exited"})
	if err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("wait on an ambiguous name: %v, want the ambiguity", err)
	}
	if n := h.hub.Subscribers(); n != 0 {
		t.Errorf("after refused waits, %d hub subscribers are left, want 0", n)
	}
}

// TestCtlWaitClientGoes: a client that goes away mid-wait ends the
// handler's wait, and with it its hub subscription.
func TestCtlWaitClientGoes(t *testing.T) {
	h := serve(t)
	ctx, cancel := context.WithCancel(t.Context())
	out := h.startWait(t, ctx, control.Request{Op: control.OpWait, Session: "1", State: "exited"})
	cancel() // closes the client's connection
	if r := <-out; r.err == nil {
		t.Fatalf("wait after the client cancelled: got %+v, want an error", r.rep)
	}
	if req := <-h.returned; req.Op != control.OpWait {
		t.Fatalf("handler returned from %s, want the wait", req.Op)
	}
	if n := h.hub.Subscribers(); n != 0 {
		t.Errorf("after the client went, %d hub subscribers are left, want 0", n)
	}
}

// TestCtlWaitSurvivesBeingDropped: a burst of events while the waiter is
// busy looking gets its subscription dropped by the hub; the wait takes a
// fresh one and still sees the state it waits for.
func TestCtlWaitSurvivesBeingDropped(t *testing.T) {
	h := serve(t)
	gate := make(chan struct{})
	busy := make(chan struct{}, 1)
	out := h.startWait(t, t.Context(), control.Request{Op: control.OpWait, Session: "1", State: "exited"})
	h.core.mu.Lock()
	h.core.onLook = func() {
		select {
		case busy <- struct{}{}:
			<-gate // hold the first look after this, while the burst comes
		default:
		}
	}
	h.core.mu.Unlock()
	h.core.setState("b2", "exited") // wakes the waiter, which blocks in its look
	<-busy
	for range 2000 {
		h.hub.Publish(control.Event{Kind: control.EventAttention, Time: time.Now()})
	}
	h.core.setState("a1", "exited")
	close(gate)
	r := <-out
	if r.err != nil || r.rep.Session == nil || r.rep.Session.ID != "a1" {
		t.Fatalf("wait after a drop: got %+v, %v; want a1 exited", r.rep.Session, r.err)
	}
}

// A wait on a session whose process ended, for a state it can no longer
// reach, ends at once with an error that says how to go on; a wait while
// it runs ends with the same error once it ends.
func TestCtlWaitForTheUnreachableEndsAtOnce(t *testing.T) {
	h := serve(t)
	h.core.setState("b2", "failed")
	_, err := h.call(t, control.Request{Op: control.OpWait, Session: "2", State: "exited"})
	if err == nil || !strings.Contains(err.Error(), "nothing running that could become exited") || !strings.Contains(err.Error(), "sandmux ctl restart 2") {
		t.Fatalf("wait for exited on a failed pane: %v, want an error at once", err)
	}
	if _, err := h.call(t, control.Request{Op: control.OpWait, Session: "2", State: "failed"}); err != nil {
		t.Fatalf("wait for the state it ended in: %v", err)
	}
	out := h.startWait(t, t.Context(), control.Request{Op: control.OpWait, Session: "1", State: "waiting"})
	h.core.setState("a1", "exited")
	if r := <-out; r.err == nil || !strings.Contains(r.err.Error(), "nothing running that could become waiting") {
		t.Fatalf("wait for waiting on a pane that exited meanwhile: %+v, %v", r.rep.Session, r.err)
	}
}

// The phases ctl checks before asking are the ones a pane really passes
// through: control's list, which the client reads, is the UI's.
func TestWaitPhasesAreThePanes(t *testing.T) {
	if !slices.Equal(control.WaitPhases, ui.Phases) {
		t.Errorf("control.WaitPhases = %q, but a pane's phases are %q: change control's list", control.WaitPhases, ui.Phases)
	}
}
