package ui

import (
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/ui/term"
)

// TestUpdateNeverBlocks feeds Update every kind of message and key and
// checks that no blocking Backend or Session method ran during Update: they
// run only when the returned commands do.
func TestUpdateNeverBlocks(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 4, 120, 40)
	msgs := []tea.Msg{
		tea.WindowSizeMsg{Width: 100, Height: 30},
		tea.WindowSizeMsg{Width: 120, Height: 40},
		keyMsg("a"), keyMsg("enter"), keyMsg("up"),
		tea.PasteMsg{Content: "pasted\n"},
		tea.MouseClickMsg{X: 70, Y: 3, Button: tea.MouseLeft},
		tea.MouseWheelMsg{X: 2, Y: 3, Button: tea.MouseWheelUp},
		tea.MouseReleaseMsg{X: 2, Y: 3, Button: tea.MouseLeft},
		tea.FocusMsg{}, tea.BlurMsg{},
		WakeMsg{Kind: WakeDirty}, frameMsg{}, WakeMsg{Kind: WakeChanged}, frameMsg{},
		m.ListInfos()(), // the sessions' infos, as a change the Backend signalled lists them
		DoMsg{Fn: func(*Model) tea.Cmd { return nil }},
	}
	before := b.Total()
	for _, msg := range msgs {
		m.Update(msg)
		if got := b.Total(); got != before {
			t.Fatalf("Update(%T) made %d blocking call(s): %v", msg, got-before, b.Calls)
		}
	}
	// Every prefix command, then the modal keys.
	for _, a := range actions {
		for _, key := range a.keys {
			send(m, keyMsg("ctrl+b"))
			send(m, keyMsg(key))
			send(m, keyMsg("esc")) // close whatever opened
			m.lv().modal, m.lv().scrollMode = nil, false
			if got := b.Total(); got != before {
				t.Fatalf("prefix %q made %d blocking call(s): %v", key, got-before, b.Calls)
			}
		}
	}
	m.Update(QuitMsg{})
	m.Update(QuitMsg{})
	send(m, keyMsg("q"))
	if got := b.Total(); got != before {
		t.Fatalf("quit requests made %d blocking call(s) in Update: %v", got-before, b.Calls)
	}
}

// runCmd runs a command and any batch it returns, collecting the messages
// of the commands that finish at once (watch and tick commands are left
// out: they are never part of the assertions).
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runCmdQuick(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// runCmdQuick runs only the commands known not to wait: it skips the watch
// (its message type is WakeMsg) by running it in a goroutine that a rewire
// later frees.
func runCmdQuick(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		if batch, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range batch {
				out = append(out, runCmdQuick(c)...)
			}
			return out
		}
		return []tea.Msg{msg}
	default:
	}
	return nil
}

func TestTypedTextReachesFocusedPaneOnly(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 3, 120, 40)
	for _, k := range []string{"h", "i", "enter"} {
		press(m, k)
	}
	if got := b.Sessions[0].Typed(); got != "hi\r" {
		t.Errorf("focused pane got %q, want %q", got, "hi\r")
	}
	for _, s := range b.Sessions[1:] {
		if got := s.Typed(); got != "" {
			t.Errorf("unfocused pane %d got %q", s.ID(), got)
		}
	}
	// Prefix twice sends the prefix itself.
	press(m, "ctrl+b")
	press(m, "ctrl+b")
	if got := b.Sessions[0].Typed(); !strings.HasSuffix(got, "\x02") {
		t.Errorf("prefix twice sent %q, want a trailing ctrl+b", got)
	}
}

func TestFocusMovesAndZoom(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 4, 120, 40) // 2×2
	steps := []struct {
		key  string
		want int
	}{{"right", 1}, {"down", 3}, {"left", 2}, {"up", 0}, {"o", 1}}
	for _, s := range steps {
		press(m, "ctrl+b")
		press(m, s.key)
		if m.lv().focusIndex() != s.want {
			t.Fatalf("after prefix %s focus = %d, want %d", s.key, m.lv().focusIndex(), s.want)
		}
	}
	press(m, "a")
	if got := b.Sessions[1].Typed(); got != "a" {
		t.Errorf("after moving focus the input went elsewhere: pane 1 got %q", got)
	}
	press(m, "ctrl+b")
	press(m, "z")
	if idx, rects := m.lv().pageRects(); len(idx) != 1 || idx[0] != 1 || rects[0].w != 120 {
		t.Errorf("zoom shows %v %v, want pane 1 alone", idx, rects)
	}
}

func TestBroadcastReachesPickedPanes(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 4, 120, 40)
	press(m, "ctrl+b")
	press(m, "b") // broadcast on: pane 0 picked
	press(m, "ctrl+b")
	press(m, "right")
	press(m, "ctrl+b")
	press(m, "right") // stays on row 0's last pane (1)
	press(m, "ctrl+b")
	press(m, "down") // pane 3
	press(m, "ctrl+b")
	press(m, "space") // pick 3
	pressX(m)
	press(m, "ctrl+b")
	press(m, "b") // broadcast off
	press(m, "y")
	want := []string{"x", "", "", "xy"}
	for i, s := range b.Sessions {
		if got := s.Typed(); got != want[i] {
			t.Errorf("pane %d got %q, want %q", i, got, want[i])
		}
	}
}

func TestClosePaneRunsInCommand(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	cmd := pressX(m)
	if m.lv().modalKind() != modalClosing {
		t.Fatal("no closing modal")
	}
	press(m, "a") // input is blocked while closing
	if got := b.Sessions[0].Typed(); got != "" {
		t.Errorf("input reached a closing pane: %q", got)
	}
	for _, msg := range runCmd(cmd) {
		_, after := m.Update(msg)
		runCmd(after) // closes the removed pane's screen
	}
	if b.Calls["Close"] != 1 || len(m.Grid()) != 1 || m.lv().modalKind() != modalNone {
		t.Errorf("after close: %d Close calls, %d panes, modal %v", b.Calls["Close"], len(m.Grid()), m.lv().modalKind())
	}
}

func TestQuitAsksThenShutsDown(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	press(m, "q")
	if m.lv().modalKind() != modalConfirmQuit {
		t.Fatal("quit did not ask while sessions run")
	}
	cmd := press(m, "y")
	if !m.Quitting() {
		t.Fatal("y did not start quitting")
	}
	if kill := press(m, "q"); kill == nil {
		t.Error("a second quit did not escalate")
	} else {
		runCmd(kill)
	}
	msgs := runCmd(cmd)
	if len(msgs) != 1 {
		t.Fatalf("shutdown command returned %v", msgs)
	}
	_, quit := m.Update(msgs[0])
	if b.Calls["Shutdown"] != 1 || b.Calls["KillAll"] != 1 || quit == nil {
		t.Errorf("calls %v, quit cmd %v", b.Calls, quit != nil)
	}
	if r := m.Results(); len(r) != 2 || r[0].Name != "apane" || !strings.Contains(r[0].String(), "killed by") {
		t.Errorf("results = %v", r)
	}
}

// A pane whose command died of the hang-up but whose processes did not all
// go is not summed up as just "killed by SIGHUP": the summary says some
// survived, and names them.
func TestSummaryNamesSurvivors(t *testing.T) {
	b := newFakeBackend()
	b.Survivors = []providers.Process{{PID: 4242, Command: "sleep 1000"}}
	m := newTestModel(t, b, 1, 120, 40)
	press(m, "ctrl+b")
	press(m, "q")
	for _, msg := range runCmd(press(m, "y")) {
		m.Update(msg)
	}
	r := m.Results()
	if len(r) != 1 {
		t.Fatalf("results = %v", r)
	}
	if got := r[0].String(); !strings.Contains(got, "killed by SIGHUP, but 1 of its processes survived") || !strings.Contains(got, "pid 4242 (sleep 1000)") {
		t.Errorf("summary %q does not say which process survived", got)
	}
}

func TestFailedPaneShowsReasonAndRestarts(t *testing.T) {
	b := newFakeBackend()
	b.StartErr["apane"] = errFailedStart
	m := newTestModel(t, b, 2, 120, 40)
	if p := m.Grid()[0]; p.Phase() != mux.PhaseFailed || !strings.Contains(p.Status(), "connection refused") {
		t.Fatalf("pane 0: phase %v status %q", p.Phase(), p.Status())
	}
	delete(b.StartErr, "apane")
	failed := m.Grid()[0].Screen()
	press(m, "ctrl+b")
	cmd := press(m, "r")
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if p := m.Grid()[0]; p.Phase() != mux.PhaseRunning || p.Screen() == failed || b.Calls["Start"] != 3 {
		t.Errorf("after restart: phase %v, a new screen %v, %d starts; want it running on a second start of its own", p.Phase(), p.Screen() != failed, b.Calls["Start"])
	}
}

func TestKillKeepsPaneForRestart(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 1, 120, 40)
	press(m, "ctrl+b")
	cmd := press(m, "k")
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if b.Calls["Kill"] != 1 || m.Grid()[0].Phase() != mux.PhaseKilled {
		t.Errorf("kill: calls %v, phase %v", b.Calls, m.Grid()[0].Phase())
	}
	setSession(m, 0, func(info *session.Info) { info.State = session.Closed })
	if m.Grid()[0].Status() != "killed" {
		t.Errorf("status after kill = %q", m.Grid()[0].Status())
	}
}

// A bell from an unfocused pane makes it waiting, once the debounce has
// passed, which marks it; focusing it clears the mark. Output that stops
// makes a pane idle, which marks nothing.
func TestAttentionMarker(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	now := fixedNow()
	m.SetClock(func() time.Time { return now })
	m.Grid()[1].Screen().Write("done\a")
	b.Sessions[1].OutputAt(now)
	m.Update(frameMsg{})
	if m.lv().pv(m.Grid()[1]).attention {
		t.Fatalf("marked before the debounce passed: %+v", m.Grid()[1].State())
	}
	now = now.Add(status.DefaultDebounce)
	turn(m)
	if !m.lv().pv(m.Grid()[1]).attention || m.lv().pv(m.Grid()[0]).attention {
		t.Fatalf("attention: %v %v, want only pane 1 marked", m.lv().pv(m.Grid()[0]).attention, m.lv().pv(m.Grid()[1]).attention)
	}
	if title := m.lv().title(1, m.Grid()[1], 80); !strings.Contains(title, "●") || !strings.Contains(title, "waiting: rang the bell") {
		t.Errorf("title of a pane needing attention: %q", title)
	}
	press(m, "ctrl+b")
	press(m, "right")
	if m.lv().pv(m.Grid()[1]).attention {
		t.Error("focusing the pane did not clear its marker")
	}

	m.Grid()[0].Screen().Write("working…")
	b.Sessions[0].OutputAt(now)
	m.Update(frameMsg{})
	now = now.Add(status.DefaultDebounce)
	turn(m)
	if st := m.Grid()[0].State(); st.State != status.Working {
		t.Fatalf("state after output = %v, want working", st)
	}
	now = now.Add(status.DefaultIdleAfter)
	turn(m)
	now = now.Add(status.DefaultDebounce)
	turn(m)
	if st := m.Grid()[0].State(); st.State != status.Idle || m.lv().pv(m.Grid()[0]).attention {
		t.Errorf("quiet pane: %v, attention %v; want idle, unmarked", st, m.lv().pv(m.Grid()[0]).attention)
	}
}

// A key typed into the focused pane changes nothing a view shows until
// its echo comes, so its Update composes no view: it costs the same
// beside 48 panes as beside one. A key that does change the view (one
// that clears a notice, the prefix) still composes it.
func TestTypedKeyComposesNothing(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 48, 200, 50)
	tm, err := term.Open(nil, io.Discard) // a view composes only to draw
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tm.Close() })
	drawTo(m, tm)
	v := m.lv()
	press(m, "x") // the first key makes the view the active one
	before := v.composes
	for _, k := range []string{"h", "i", "enter", "up", "space"} {
		press(m, k)
	}
	if v.composes != before {
		t.Errorf("5 keys typed into a pane composed the view %d times, want none", v.composes-before)
	}
	if got := b.Sessions[0].Typed(); got != "xhi\r\x1b[A " {
		t.Errorf("the pane was sent %q", got)
	}
	v.notice = "a notice the next key clears"
	press(m, "a")
	if v.composes == before {
		t.Error("a key that cleared a notice composed nothing: the notice stays on screen")
	}
	if strings.Contains(content(m), "a notice") {
		t.Error("the notice is still shown after a key")
	}
	before = v.composes
	press(m, "ctrl+b")
	press(m, "z")
	if v.composes == before {
		t.Error("the prefix and z (zoom) composed nothing")
	}
}
