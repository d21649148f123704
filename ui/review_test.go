package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Growing the terminal while a later page is shown keeps a valid page.
func TestResizeClampsPage(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 5, 45, 9)
	if n := m.lv().pageSize(); n >= 5 {
		t.Fatalf("test setup: %d panes fit on a page", n)
	}
	m.lv().setFocus(4)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	if idx, _ := m.lv().pageRects(); len(idx) != 5 || m.lv().page != 0 {
		t.Errorf("after growing: page %d shows %v, want all five", m.lv().page, idx)
	}
}

// A pane's output while its page was not shown is drawn when it is.
func TestOffPagePaneDrawnWhenShown(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 8, 45, 9)
	last := m.panes[len(m.panes)-1]
	last.screen.Write("\r\nlate output")
	m.Update(frameMsg{})
	m.lv().setFocus(len(m.panes) - 1)
	if !strings.Contains(string(bytes.Join(m.lv().pv(last).rows, nil)), "late output") {
		t.Errorf("the page's pane does not show its output: %q", bytes.Join(m.lv().pv(last).rows, nil))
	}
}

// Kill, then close: one summary line, no Close of a session already gone.
func TestKillThenCloseOneResult(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	for _, msg := range runCmd(press(m, "k")) {
		m.Update(msg)
	}
	press(m, "ctrl+b")
	runCmd(press(m, "x"))
	if b.calls["Close"] != 0 || len(m.panes) != 1 {
		t.Errorf("close of a killed pane: %d Close calls, %d panes", b.calls["Close"], len(m.panes))
	}
	m.Update(shutdownMsg{})
	if r := m.Results(); len(r) != 2 || r[0].Err != nil {
		t.Errorf("results = %v, want one line per pane and no error", r)
	}
}

// Closing (and killing) a pane, then quitting: a second quit still kills
// everything.
func TestQuitEscalatesAfterAClose(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	closeCmd := press(m, "x")
	runCmd(press(m, "x")) // escalate the close to a kill
	for _, msg := range runCmd(closeCmd) {
		_, after := m.Update(msg)
		runCmd(after) // closes the removed pane's screen
	}
	press(m, "ctrl+b")
	press(m, "q")
	press(m, "y")
	if kill := press(m, "q"); kill == nil {
		t.Fatal("the second quit did not escalate")
	} else {
		runCmd(kill)
	}
	if b.calls["KillAll"] != 1 {
		t.Errorf("KillAll calls = %d, want 1", b.calls["KillAll"])
	}
}

// A resize redraws every pane but is not output: no attention marker.
func TestResizeIsNotOutput(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	now := fixedNow()
	m.now = func() time.Time { return now }
	m.cfg.AttentionAfter = 30 * time.Second
	// The start-up output goes quiet: marked once, then cleared by a visit.
	now = now.Add(time.Minute)
	m.Update(attentionMsg{})
	if !m.lv().pv(m.panes[1]).attention {
		t.Fatal("test setup: the quiet pane was not marked")
	}
	m.lv().setFocus(1)
	m.lv().setFocus(0)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(frameMsg{})
	now = now.Add(time.Hour)
	m.Update(attentionMsg{})
	if m.lv().pv(m.panes[1]).attention {
		t.Error("a resize marked a quiet pane for attention")
	}
}

// With every pane closed, every line still spans the width (stale text
// cannot show through).
func TestNoPanesLineIsFullWidth(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 1, 80, 24)
	press(m, "ctrl+b")
	for _, msg := range runCmd(press(m, "x")) {
		_, after := m.Update(msg)
		runCmd(after)
	}
	lines, _ := m.lv().frame()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 80 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
}

// A cursor that goes away is hidden even when no line changed.
func TestTerminalHidesCursor(t *testing.T) {
	var tm Terminal
	lines := []string{"a", "b"}
	tm.render(&frame{lines: lines, width: 1, cursor: tea.NewCursor(0, 0)})
	if got := string(tm.render(&frame{lines: lines, width: 1})); !strings.Contains(got, "\x1b[?25l") {
		t.Errorf("frame without a cursor wrote %q, want the cursor hidden", got)
	}
}

// Keys typed after a pane's session started (its output may already show)
// but before the model learned of it reach the session, in order.
func TestInputWhileStartingIsKept(t *testing.T) {
	b := newFakeBackend()
	m := New(t.Context(), Config{Prefix: "ctrl+b"}, b, []PaneSpec{{Name: "apane", Provider: "fake"}})
	m.lv().width, m.lv().height, m.started = 80, 24, true
	start := m.panes[0].start(t.Context(), b, m.lv().bodySize(0), 0, m.wake)
	t.Cleanup(func() { m.panes[0].screen.Close() })
	for _, k := range []string{"h", "i", "enter"} {
		press(m, k)
	}
	m.Update(start())
	press(m, "!")
	if got := b.sessions[0].typed(); got != "hi\r!" {
		t.Errorf("session got %q, want %q", got, "hi\r!")
	}
}
