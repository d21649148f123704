package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session"
)

var errFullStore = errors.New(`tear down session "apane": snapshot "apane": write /store/apane/tmp: no space left on device` +
	" \x1b]52;c;aGk=\x07(hostile)")

// closeWith presses prefix key, runs the command it returns and delivers
// its messages, as the program would.
func closeWith(t *testing.T, m *Model, key string) {
	t.Helper()
	press(m, "ctrl+b")
	cmd := press(m, key)
	if m.lv().modalKind() == modalConfirmClose {
		cmd = press(m, "y") // x asks first on a pane that runs
	}
	for _, msg := range runCmd(cmd) {
		_, after := m.Update(msg)
		runCmd(after)
	}
}

func plainView(m *Model) string { return ansi.Strip(content(m)) }

// TestContract_W7_FailedCloseKeepsPaneUntilDismissed: a close whose
// teardown (its snapshot) failed leaves the pane on the grid showing the
// error, escaped and wrapped, and how to dismiss it; prefix x removes it;
// the failure is kept for the exit code.
func TestContract_W7_FailedCloseKeepsPaneUntilDismissed(t *testing.T) {
	b := newFakeBackend()
	b.CloseErr["apane"] = errFullStore
	m := newTestModel(t, b, 2, 120, 40)
	closeWith(t, m, "x")
	if len(m.Grid()) != 2 || m.lv().modalKind() != modalNone {
		t.Fatalf("after a failed close: %d panes, modal %v; want the pane kept and the modal gone", len(m.Grid()), m.lv().modalKind())
	}
	v := plainView(m)
	for _, want := range []string{"close failed", "no space left on device", "ctrl+b x dismisses", `\x1b]52`} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(content(m), "\x1b]52") {
		t.Error("the error's escape sequence reached the terminal raw")
	}
	if m.TeardownErr() == nil {
		t.Error("the failed close is not kept for the exit code")
	}
	press(m, "a") // the closed pane takes no input and the alert stays
	if len(m.Grid()) != 2 || !strings.Contains(plainView(m), "close failed") {
		t.Fatal("the alert went away without being dismissed")
	}
	press(m, "ctrl+b")
	runCmd(pressX(m))
	if len(m.Grid()) != 1 || m.Grid()[0].Spec().Name != "bpane" || strings.Contains(plainView(m), "close failed") {
		t.Fatalf("prefix x left %d panes:\n%s", len(m.Grid()), plainView(m))
	}
	r := m.Results()
	if len(r) != 1 || !strings.Contains(r[0].String(), "no space left on device") {
		t.Errorf("the summary lacks the failure: %v", r)
	}
	if m.TeardownErr() == nil {
		t.Error("dismissing the alert forgot the failure")
	}
}

// A failed kill keeps the pane as every kill does, with the error shown;
// prefix x dismisses the error and keeps the killed pane for a restart.
func TestContract_W7_FailedKillShowsErrorUntilDismissed(t *testing.T) {
	b := newFakeBackend()
	b.CloseErr["apane"] = errFullStore
	m := newTestModel(t, b, 1, 120, 40)
	closeWith(t, m, "k")
	if p := m.Grid()[0]; p.Phase() != mux.PhaseKilled || !strings.Contains(plainView(m), "kill failed") {
		t.Fatalf("after a failed kill: phase %v:\n%s", p.Phase(), plainView(m))
	}
	press(m, "ctrl+b")
	runCmd(pressX(m))
	if len(m.Grid()) != 1 || m.Grid()[0].Phase() != mux.PhaseKilled || strings.Contains(plainView(m), "kill failed") {
		t.Fatalf("prefix x: %d panes:\n%s", len(m.Grid()), plainView(m))
	}
	if m.TeardownErr() == nil {
		t.Error("the failed kill is not kept for the exit code")
	}
	closeWith(t, m, "k")
	if m.Grid()[0].HasAlert() {
		t.Fatal("the pane was killed again") // k on a killed pane does nothing
	}
}

// Restarting a pane whose kill failed answers the alert too.
func TestContract_W7_RestartAnswersAlert(t *testing.T) {
	b := newFakeBackend()
	b.CloseErr["apane"] = errFullStore
	m := newTestModel(t, b, 1, 120, 40)
	closeWith(t, m, "k")
	old := m.Grid()[0].Screen()
	defer old.Close() // the start command, not run here, would close it
	press(m, "ctrl+b")
	press(m, "r")
	if m.Grid()[0].HasAlert() || strings.Contains(plainView(m), "kill failed") {
		t.Errorf("the alert outlived the restart:\n%s", plainView(m))
	}
}

// Restarting an exited pane closes its old session first; a snapshot that
// fails there is shown too, over the new run.
func TestContract_W7_FailedCloseBeforeRestartIsShown(t *testing.T) {
	b := newFakeBackend()
	b.CloseErr["apane"] = errFullStore
	m := newTestModel(t, b, 1, 120, 40)
	b.Mu.Lock()
	b.Sessions[0].Live.State, b.Sessions[0].Live.ExitKnown = session.Exited, true
	b.Mu.Unlock()
	m.Update(m.ListInfos()())
	if m.Grid()[0].Phase() != mux.PhaseExited {
		t.Fatalf("phase %v, want exited", m.Grid()[0].Phase())
	}
	old := m.Grid()[0].Screen()
	defer old.Close() // the start command, not run here, would close it
	press(m, "ctrl+b")
	// The restart closes the old session first; its message brings the
	// start, not run here.
	m.Update(press(m, "r")())
	if !strings.Contains(plainView(m), "close failed") || m.TeardownErr() == nil {
		t.Errorf("the failed close before the restart is silent:\n%s", plainView(m))
	}
}
