package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// startingModel returns a model of one pane whose start command has been
// issued by Update but not run yet: the pane is starting.
func startingModel(t *testing.T, b *fakeBackend) (*Model, tea.Cmd) {
	t.Helper()
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, b, []mux.PaneSpec{{Name: "apane", Provider: "fake"}})
	start := attachClient(m, 80, 24)[0]
	p := m.Grid()[0]
	t.Cleanup(func() { p.Screen().Close() }) // also once the pane was removed
	return m, start
}

// x on a starting pane cancels its start, shows that, and removes the
// pane once the start returned; Update itself calls nothing that blocks.
func TestContract_S4_CloseStartingPaneCancelsStart(t *testing.T) {
	b := newFakeBackend()
	b.StartGate["apane"] = make(chan struct{}) // never opens: a host that never answers
	m, start := startingModel(t, b)
	before := b.Total()
	press(m, "ctrl+b")
	pressX(m)
	if b.Total() != before {
		t.Fatalf("x made blocking calls in Update: %v", b.Calls)
	}
	if m.lv().modalKind() != modalClosing || !strings.Contains(m.lv().teardownText(), "cancelling the start") {
		t.Fatalf("after x on a starting pane: modal %v, text %q; want the closing modal saying the start is being cancelled", m.lv().modalKind(), m.lv().teardownText())
	}
	m.Update(start()) // returns because the start was cancelled
	if len(m.Grid()) != 0 || m.lv().modalKind() != modalNone {
		t.Fatalf("after the cancelled start: %d panes, modal %v; want the pane removed", len(m.Grid()), m.lv().modalKind())
	}
	if r := m.Results(); len(r) != 1 || r[0].Status != "start cancelled" || !errors.Is(r[0].Err, mux.ErrStartCancelled) {
		t.Errorf("results = %v, want one pane whose start was cancelled", r)
	}
}

// k on a starting pane cancels its start; the pane stays, showing the
// start cancelled, and can be restarted.
func TestContract_S4_KillStartingPaneCancelsStart(t *testing.T) {
	b := newFakeBackend()
	b.StartGate["apane"] = make(chan struct{})
	m, start := startingModel(t, b)
	press(m, "ctrl+b")
	press(m, "k")
	if p := m.Grid()[0]; p.Status() != "cancelling the start" {
		t.Fatalf("status after k = %q, want the start being cancelled", p.Status())
	}
	m.Update(start())
	p := m.Grid()[0]
	if p.Phase() != mux.PhaseCancelled || p.Status() != "start cancelled" || !p.Restartable() {
		t.Errorf("after the cancelled start: phase %v, status %q, restartable %v", p.Phase(), p.Status(), p.Restartable())
	}
}

// A start that completed before the cancellation reached it: the session
// is torn down as asked (x closes and removes the pane, k kills it).
func TestContract_S4_CancelledStartThatWonIsTornDown(t *testing.T) {
	for _, key := range []string{"x", "k"} {
		t.Run(key, func(t *testing.T) {
			b := newFakeBackend()
			m, start := startingModel(t, b) // no gate: Start returns at once
			press(m, "ctrl+b")
			press(m, key)
			_, cmd := m.Update(start())
			if cmd == nil {
				t.Fatal("the started session was not torn down")
			}
			m.Update(cmd())
			want := map[string]string{"x": "Close", "k": "Kill"}[key]
			if b.Calls[want] != 1 {
				t.Errorf("calls = %v, want one %s", b.Calls, want)
			}
			switch {
			case key == "x" && len(m.Grid()) != 0:
				t.Error("x: the pane was not removed")
			case key == "k" && m.Grid()[0].Phase() != mux.PhaseKilled:
				t.Errorf("k: phase %v, want killed", m.Grid()[0].Phase())
			}
		})
	}
}

// hangingProvider's Open connects until its context is cancelled, as to a
// host that accepts and never answers.
type hangingProvider struct{ entered chan struct{} }

func (h hangingProvider) Open(ctx context.Context, _ providers.Spec) (providers.PTY, error) {
	close(h.entered)
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

// Through the real Manager: x on a pane whose provider hangs in Open
// cancels Open's context, and the pane goes once the start returned.
func TestContract_S4_CloseStartingPaneCancelsManagerStart(t *testing.T) {
	h := hangingProvider{entered: make(chan struct{})}
	mgr := session.NewManager(providers.Table{"hang": h})
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, FromManager(mgr), []mux.PaneSpec{{Name: "apane", Provider: "hang"}})
	start := attachClient(m, 80, 24)[0]
	p := m.Grid()[0]
	t.Cleanup(func() { p.Screen().Close() })
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- start() }()
	<-h.entered
	press(m, "ctrl+b")
	pressX(m)
	m.Update(<-msgs)
	if len(m.Grid()) != 0 {
		t.Fatalf("pane still there, status %q", p.Status())
	}
	if r := m.Results(); len(r) != 1 || r[0].Status != "start cancelled" || !errors.Is(r[0].Err, mux.ErrStartCancelled) {
		t.Errorf("results = %v, want the start cancelled", r)
	}
	if err := mgr.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	mgr.Wait()
}

// A quit while a pane's start is still preparing cancels that start, and
// the program ends only once the start returned.
func TestContract_S4_QuitWaitsForPendingStart(t *testing.T) {
	b := newFakeBackend()
	b.StartGate["apane"] = make(chan struct{})
	m, start := startingModel(t, b)
	quit := m.StartQuit(false)
	m.Update(quit()) // the Manager's Shutdown returned
	if m.Done() {
		t.Fatal("the program ended with a start still pending")
	}
	m.Update(start()) // returns: the quit cancelled it
	if !m.Done() {
		t.Fatal("the program did not end once the pending start returned")
	}
	if r := m.Results(); len(r) != 1 || r[0].Status != "start cancelled" {
		t.Errorf("results = %v, want the start cancelled", r)
	}
}

// Keys typed after a pane's session started (its output may already show)
// but before the model learned of it reach the session, in order.
func TestInputWhileStartingIsKept(t *testing.T) {
	b := newFakeBackend()
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, b, []mux.PaneSpec{{Name: "apane", Provider: "fake"}})
	start := attachClient(m, 80, 24)[0]
	t.Cleanup(func() { m.Grid()[0].Screen().Close() })
	for _, k := range []string{"h", "i", "enter"} {
		press(m, k)
	}
	m.Update(start())
	press(m, "!")
	if got := b.Sessions[0].Typed(); got != "hi\r!" {
		t.Errorf("session got %q, want %q", got, "hi\r!")
	}
}
