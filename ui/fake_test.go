package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/ui/term"
)

// fakeBackend is muxtest's Backend as a mux.Backend.
type fakeBackend struct{ *muxtest.Backend }

func newFakeBackend() *fakeBackend { return &fakeBackend{muxtest.NewBackend()} }

func (b *fakeBackend) Start(ctx context.Context, provider string, spec providers.Spec, opts session.Options) (Session, error) {
	s, err := b.StartSession(ctx, provider, spec, opts)
	if s == nil {
		return nil, err // not a nil *muxtest.Session in the interface
	}
	return s, err
}

var errFailedStart = muxtest.ErrFailedStart

// fixedNow pins the clock shown in titles.
func fixedNow() time.Time { return muxtest.FixedNow() }

// newTestModel builds a model of n panes at w×h and starts every pane
// synchronously: each start command is run here, its message delivered.
func newTestModel(t testing.TB, b *fakeBackend, n, w, h int) *Model {
	t.Helper()
	return newTestModelWith(t, b, n, w, h, func(*Config) {})
}

// newTestModelWith is newTestModel with its config changed by set first.
func newTestModelWith(t testing.TB, b *fakeBackend, n, w, h int, set func(*Config)) *Model {
	t.Helper()
	var specs []mux.PaneSpec
	for i := range n {
		name := paneName(i)
		specs = append(specs, mux.PaneSpec{Name: name, Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
		if _, ok := b.Output[name]; !ok {
			b.Output[name] = "$ echo " + name + "\r\n" + name + "\r\n$ "
		}
	}
	cfg := Config{Prefix: "ctrl+b", FPS: 60, Scrollback: 1000}
	set(&cfg)
	m := New(t.Context(), cfg, b, specs)
	m.SetClock(fixedNow)
	startTestPanes(m, w, h)
	t.Cleanup(func() {
		for _, p := range m.Grid() {
			if p.Screen() != nil {
				p.Screen().Close()
			}
		}
	})
	return m
}

func paneName(i int) string { return string(rune('a'+i%26)) + "pane" }

// press delivers a key press from the test's client, as the server
// forwards it.
func press(m *Model, key string) tea.Cmd { return send(m, keyMsg(key)) }

// send delivers msg (a key, a size, a mouse report) from the test's
// client.
func send(m *Model, msg tea.Msg) tea.Cmd {
	_, cmd := m.Update(ClientMsg{ID: 0, Msg: msg})
	return cmd
}

// screen is what the test's client is shown: its lines, joined, and
// where its cursor goes (nil: hidden).
func screen(m *Model) (string, *tea.Cursor) {
	lines, cursor := m.lv().compose()
	return strings.Join(lines, "\n"), cursor
}

// content is the test client's lines, joined.
func content(m *Model) string {
	s, _ := screen(m)
	return s
}

// pressX presses x after the prefix was pressed, and y when x asks
// first (a pane that runs), as the user answers.
func pressX(m *Model) tea.Cmd {
	cmd := press(m, "x")
	if m.lv().modalKind() == modalConfirmClose {
		cmd = press(m, "y")
	}
	return cmd
}

func keyMsg(key string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"ctrl+b": {Code: 'b', Mod: tea.ModCtrl}, "enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
		"space": {Code: tea.KeySpace, Text: " "},
	}
	if k, ok := special[key]; ok {
		return tea.KeyPressMsg(k)
	}
	r := []rune(key)[0]
	return tea.KeyPressMsg(tea.Key{Code: r, Text: key})
}

// startTestPanes attaches the test's client at w×h, which starts every
// pane: each start command is run here, its message delivered; the
// client then takes its first frames of the new screens.
func startTestPanes(m *Model, w, h int) {
	for _, start := range attachClient(m, w, h) {
		m.Update(start())
	}
	m.lv().relayout()
	m.Update(frameMsg{})
}

// attachClient attaches the test's client, view 0, at w×h; the first
// client starts the panes. It returns their starts, not run: one
// command a pane, in grid order.
func attachClient(m *Model, w, h int) []tea.Cmd {
	// The attach alone (update, not Update): what Update adds after it,
	// the watch among it, would be taken for a start.
	cmd := m.update(AttachMsg{ID: 0, Width: w, Height: h})
	switch len(m.Grid()) {
	case 0:
		return nil
	case 1:
		return []tea.Cmd{cmd}
	}
	return cmd().(tea.BatchMsg)
}

// setSession changes what pane i's fake session reports, then delivers
// the sessions' infos as a change the Backend signalled does.
func setSession(m *Model, i int, change func(*session.Info)) {
	b := m.Backend().(*fakeBackend)
	b.Mu.Lock()
	for _, s := range b.Sessions {
		if s.Live.Name == m.Grid()[i].Spec().Name {
			change(&s.Live)
		}
	}
	b.Mu.Unlock()
	m.Update(m.ListInfos()())
}

// turn is one Update that does nothing itself, as any message is: after
// it the shared side syncs the states at the model's clock.
func turn(m *Model) { m.Update(DoMsg{Fn: func(*Model) tea.Cmd { return nil }}) }

// quietOnStart moves the model's clock, now, on until the panes that printed as
// they started went idle: a minute of quiet, then the debounce.
func quietOnStart(m *Model, now *time.Time) {
	*now = now.Add(time.Minute)
	turn(m)
	*now = now.Add(status.DefaultDebounce)
	turn(m)
}

// drawTo attaches the test's client again, drawn through t, at the size
// it had.
func drawTo(m *Model, t *term.Terminal) {
	w, h := m.lv().width, m.lv().height
	m.Update(DetachMsg{ID: 0})
	m.Update(AttachMsg{ID: 0, Term: t, Width: w, Height: h})
}

// lv is the test's client's view, attached by newTestModel.
func (m *Model) lv() *view { return m.viewByID(0) }
