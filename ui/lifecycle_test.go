package ui

import "testing"

// Kill, then close: one summary line, no Close of a session already gone.
func TestKillThenCloseOneResult(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	for _, msg := range runCmd(press(m, "k")) {
		m.Update(msg)
	}
	press(m, "ctrl+b")
	runCmd(pressX(m))
	if b.Calls["Close"] != 0 || len(m.Grid()) != 1 {
		t.Errorf("close of a killed pane: %d Close calls, %d panes", b.Calls["Close"], len(m.Grid()))
	}
	for _, msg := range runCmd(m.StartQuit(false)) { // the Manager's Shutdown returned
		m.Update(msg)
	}
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
	closeCmd := pressX(m)
	runCmd(pressX(m)) // escalate the close to a kill
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
	if b.Calls["KillAll"] != 1 {
		t.Errorf("KillAll calls = %d, want 1", b.Calls["KillAll"])
	}
}
