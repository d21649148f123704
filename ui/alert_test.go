package ui

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/session"
)

var errFullStore = errors.New(`tear down session "apane": snapshot "apane": write /store/apane/tmp: no space left on device` +
	" \x1b]52;c;aGk=\x07(hostile)")

// closeWith presses prefix key, runs the command it returns and delivers
// its messages, as the program would.
func closeWith(t *testing.T, m *Model, key string) {
	t.Helper()
	press(m, "ctrl+b")
	for _, msg := range runCmd(press(m, key)) {
		_, after := m.Update(msg)
		runCmd(after)
	}
}

func plainView(m *Model) string { return ansi.Strip(m.View().Content) }

// TestContract_W6_FailedCloseKeepsPaneUntilDismissed: a close whose
// teardown (its snapshot) failed leaves the pane on the grid showing the
// error, escaped and wrapped, and how to dismiss it; prefix d removes it;
// the failure is kept for the exit code.
func TestContract_W6_FailedCloseKeepsPaneUntilDismissed(t *testing.T) {
	b := newFakeBackend()
	b.closeErr["apane"] = errFullStore
	m := newTestModel(t, b, 2, 120, 40)
	closeWith(t, m, "x")
	if len(m.panes) != 2 || m.modal != modalNone {
		t.Fatalf("after a failed close: %d panes, modal %v; want the pane kept and the modal gone", len(m.panes), m.modal)
	}
	v := plainView(m)
	for _, want := range []string{"close failed", "no space left on device", "ctrl+b d dismisses", `\x1b]52`} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(m.View().Content, "\x1b]52") {
		t.Error("the error's escape sequence reached the terminal raw")
	}
	if m.TeardownErr() == nil {
		t.Error("the failed close is not kept for the exit code")
	}
	press(m, "a") // the closed pane takes no input and the alert stays
	if len(m.panes) != 2 || !strings.Contains(plainView(m), "close failed") {
		t.Fatal("the alert went away without being dismissed")
	}
	press(m, "ctrl+b")
	runCmd(press(m, "d"))
	if len(m.panes) != 1 || m.panes[0].spec.Name != "bpane" || strings.Contains(plainView(m), "close failed") {
		t.Fatalf("prefix d left %d panes:\n%s", len(m.panes), plainView(m))
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
// prefix d dismisses the error and keeps the killed pane for a restart.
func TestContract_W6_FailedKillShowsErrorUntilDismissed(t *testing.T) {
	b := newFakeBackend()
	b.closeErr["apane"] = errFullStore
	m := newTestModel(t, b, 1, 120, 40)
	closeWith(t, m, "k")
	if p := m.panes[0]; p.phase != phaseKilled || !strings.Contains(plainView(m), "kill failed") {
		t.Fatalf("after a failed kill: phase %v:\n%s", p.phase, plainView(m))
	}
	press(m, "ctrl+b")
	runCmd(press(m, "d"))
	if len(m.panes) != 1 || m.panes[0].phase != phaseKilled || strings.Contains(plainView(m), "kill failed") {
		t.Fatalf("prefix d: %d panes:\n%s", len(m.panes), plainView(m))
	}
	if m.TeardownErr() == nil {
		t.Error("the failed kill is not kept for the exit code")
	}
	closeWith(t, m, "k")
	if m.panes[0].alert != nil {
		t.Fatal("the pane was killed again") // k on a killed pane does nothing
	}
}

// Restarting a pane whose kill failed answers the alert too.
func TestContract_W6_RestartAnswersAlert(t *testing.T) {
	b := newFakeBackend()
	b.closeErr["apane"] = errFullStore
	m := newTestModel(t, b, 1, 120, 40)
	closeWith(t, m, "k")
	old := m.panes[0].screen
	defer old.Close() // the start command, not run here, would close it
	press(m, "ctrl+b")
	press(m, "r")
	if m.panes[0].alert != nil || strings.Contains(plainView(m), "kill failed") {
		t.Errorf("the alert outlived the restart:\n%s", plainView(m))
	}
}

// Restarting an exited pane closes its old session first; a snapshot that
// fails there is shown too, over the new run.
func TestContract_W6_FailedCloseBeforeRestartIsShown(t *testing.T) {
	b := newFakeBackend()
	b.closeErr["apane"] = errFullStore
	m := newTestModel(t, b, 1, 120, 40)
	b.mu.Lock()
	b.sessions[0].info.State, b.sessions[0].info.ExitKnown = session.Exited, true
	b.mu.Unlock()
	m.Update(infosMsg{infos: b.List()})
	if m.panes[0].phase != phaseExited {
		t.Fatalf("phase %v, want exited", m.panes[0].phase)
	}
	old := m.panes[0].screen
	defer old.Close() // the start command, not run here, would close it
	press(m, "ctrl+b")
	// The restart is a sequence: the old session's close, then the start.
	seq := reflect.ValueOf(press(m, "r")()).Convert(reflect.TypeFor[[]tea.Cmd]()).Interface().([]tea.Cmd)
	m.Update(seq[0]())
	if !strings.Contains(plainView(m), "close failed") || m.TeardownErr() == nil {
		t.Errorf("the failed close before the restart is silent:\n%s", plainView(m))
	}
}

// FuzzEscapeControls: whatever an error says, its alert text has no
// control character left to act on the terminal, and printable text
// passes unchanged.
func FuzzEscapeControls(f *testing.F) {
	f.Add("write /store: no space left on device")
	f.Add("\x1b]52;c;aGk=\x07 \x9b31m \u0085 \u2028 \t tab")
	f.Fuzz(func(t *testing.T, s string) {
		out := escapeControls(s)
		for _, r := range out {
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("escapeControls(%q) = %q keeps control %U", s, out, r)
			}
		}
		plain := true
		for _, r := range s {
			plain = plain && !unicode.IsControl(r) && r != '\u2028' && r != '\u2029' && r != utf8.RuneError
		}
		if plain && out != s {
			t.Fatalf("escapeControls(%q) = %q changed printable text", s, out)
		}
	})
}
