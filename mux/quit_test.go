package mux

import (
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// A pane opened while the server quits (ctl run, or `sandmux CMD` on a
// server already quitting) is refused. Added, it never started, and the
// quit, which waits for every start to report, never ended: a server
// whose every pane had closed stayed up for good, deaf to SIGTERM.
func TestOpenWhileQuittingIsRefused(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 1, Config{})
	shutdown := s.StartQuit(false)
	_, cmd, err := s.Open(PaneSpec{Name: "late", Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
	if err == nil || cmd != nil || !strings.Contains(err.Error(), "quitting") {
		t.Errorf("Open while quitting = %v, %v; want a refusal saying the server quits", cmd != nil, err)
	}
	if n := len(s.Grid()); n != 1 {
		t.Errorf("%d panes after the refused open, want 1", n)
	}
	for _, msg := range runNow(shutdown) {
		for _, next := range runNow(update(s, msg)) {
			update(s, next)
		}
	}
	if !s.Done() {
		t.Error("the quit did not end once every session was down")
	}
}

// A quit that comes before the server started its panes (a SIGTERM at
// once) ends once the shutdown reports: the panes never started have no
// start to wait for, and none starts after it.
func TestQuitBeforeTheStartEnds(t *testing.T) {
	b := newFakeBackend()
	v := newStubViews()
	s := NewShared(t.Context(), Config{Scrollback: 1000}, b, v, []PaneSpec{{Name: "a", Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}}})
	t.Cleanup(s.StopWatching)
	shutdown := s.StartQuit(false)
	if start := s.StartAll(); start != nil {
		t.Error("StartAll after the quit starts panes")
	}
	for _, msg := range runNow(shutdown) {
		for _, next := range runNow(update(s, msg)) {
			update(s, next)
		}
	}
	if !s.Done() {
		t.Error("a quit before the start never ended")
	}
}
