package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/ui/term"
)

// fakeBackend counts every call. Its blocking methods (all but Changed and
// KillAll) must only ever run inside commands, never from Update.
type fakeBackend struct {
	mu       sync.Mutex
	calls    map[string]int
	changed  chan struct{}
	next     session.ID
	sessions []*fakeSession
	startErr map[string]error  // by pane name
	output   map[string]string // written to the sinks at start, by pane name
	// survivors, when set, is what every teardown leaves alive.
	survivors []providers.Process
	// startGate, by pane name, holds Start until it is closed or the
	// start's context is cancelled.
	startGate map[string]chan struct{}
	closeErr  map[string]error // returned by Close and Kill, by pane name
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{calls: map[string]int{}, changed: make(chan struct{}, 1), startErr: map[string]error{}, startGate: map[string]chan struct{}{}, output: map[string]string{}, closeErr: map[string]error{}}
}

func (b *fakeBackend) count(name string) {
	b.mu.Lock()
	b.calls[name]++
	b.mu.Unlock()
}

func (b *fakeBackend) total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, c := range b.calls {
		n += c
	}
	for _, s := range b.sessions {
		n += s.resizes
	}
	return n
}

func (b *fakeBackend) Start(ctx context.Context, _ string, spec providers.Spec, opts session.Options) (Session, error) {
	b.count("Start")
	if err := b.startErr[spec.Name]; err != nil {
		return nil, err
	}
	if gate := b.startGate[spec.Name]; gate != nil {
		// Connecting until the gate opens or the start is cancelled, as
		// the Manager's Start does.
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	b.mu.Lock()
	b.next++
	s := &fakeSession{b: b, id: b.next, info: session.Info{ID: b.next, Name: spec.Name, State: session.Running}}
	if b.output[spec.Name] != "" {
		s.info.LastOutput = fixedNow()
	}
	b.sessions = append(b.sessions, s)
	out := b.output[spec.Name]
	b.mu.Unlock()
	for _, sink := range opts.Sinks {
		sink.Output(out)
	}
	if opts.Screen != nil && out != "" {
		// As the session's consumer does: a turn, then the text.
		opts.Turns.Take()
		opts.Screen.Write(out)
		opts.Turns.Give()
	}
	return s, nil
}

func (b *fakeBackend) end(id session.ID, st providers.ExitStatus, killed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.sessions {
		if s.id == id {
			s.info.State, s.info.Exit, s.info.ExitKnown, s.info.Killed = session.Closed, st, true, killed
			if len(b.survivors) > 0 {
				s.info.Killed, s.info.Survivors = false, b.survivors
				s.info.Err = fmt.Errorf("process group still alive after SIGKILL; survivors: %v", b.survivors[0])
			}
		}
	}
}

func (b *fakeBackend) Close(_ context.Context, id session.ID) error {
	b.count("Close")
	b.end(id, providers.ExitStatus{Code: -1, Signal: 1}, true)
	return b.teardownErr(id)
}

func (b *fakeBackend) Kill(_ context.Context, id session.ID) error {
	b.count("Kill")
	b.end(id, providers.ExitStatus{Code: -1, Signal: 9}, true)
	return b.teardownErr(id)
}

// teardownErr is the error set for the session's pane in closeErr, also
// kept in its Info as the Manager does.
func (b *fakeBackend) teardownErr(id session.ID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.sessions {
		if s.id == id {
			s.info.Err = b.closeErr[s.info.Name]
			return s.info.Err
		}
	}
	return nil
}

func (b *fakeBackend) Shutdown(context.Context) error {
	b.count("Shutdown")
	for _, s := range b.sessions {
		b.end(s.id, providers.ExitStatus{Code: -1, Signal: 1}, true)
	}
	return nil
}

func (b *fakeBackend) KillAll()                 { b.count("KillAll") }
func (b *fakeBackend) Changed() <-chan struct{} { return b.changed }

func (b *fakeBackend) List() []session.Info {
	b.count("List")
	b.mu.Lock()
	defer b.mu.Unlock()
	var infos []session.Info
	for _, s := range b.sessions {
		infos = append(infos, s.info)
	}
	return infos
}

// fakeSession records input; Write only queues (it is the one method
// Update may call), Resize counts as a blocking call.
type fakeSession struct {
	b       *fakeBackend
	id      session.ID
	info    session.Info
	input   []byte
	resizes int
	usage   *providers.Usage // nil: the provider cannot tell
}

func (s *fakeSession) ID() session.ID { return s.id }

func (s *fakeSession) Write(p []byte) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.input = append(s.input, p...)
	return nil
}

func (s *fakeSession) Resize(providers.Size) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.resizes++
	return nil
}

func (s *fakeSession) Info() session.Info {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.info
}

func (s *fakeSession) LastOutput() time.Time {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.info.LastOutput
}

func (s *fakeSession) Usage() (providers.Usage, bool) {
	s.b.count("Usage") // it reads files: commands only
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.usage == nil {
		return providers.Usage{}, false
	}
	return *s.usage, true
}

// outputAt records that output arrived at t, as the session would.
func (s *fakeSession) outputAt(t time.Time) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.info.LastOutput = t
}

func (s *fakeSession) typed() string {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return string(s.input)
}

var errFailedStart = errors.New("dial tcp 127.0.0.1:2222: connection refused")

// fixedNow pins the clock shown in titles.
func fixedNow() time.Time { return time.Date(2026, 11, 29, 12, 34, 56, 0, time.UTC) }

// newTestModel builds a model of n panes at w×h and starts every pane
// synchronously: each start command is run here, its message delivered.
func newTestModel(t testing.TB, b *fakeBackend, n, w, h int) *Model {
	t.Helper()
	var specs []mux.PaneSpec
	for i := range n {
		name := paneName(i)
		specs = append(specs, mux.PaneSpec{Name: name, Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
		if _, ok := b.output[name]; !ok {
			b.output[name] = "$ echo " + name + "\r\n" + name + "\r\n$ "
		}
	}
	m := New(t.Context(), Config{Prefix: "ctrl+b", FPS: 60, Scrollback: 1000}, b, specs)
	m.SetClock(fixedNow)
	startTestPanes(t, m, b, w, h)
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

// startTestPanes attaches the test's client at w×h and starts every
// pane synchronously: each start command is run here, its message
// delivered; the client then takes its first frames of the new screens.
func startTestPanes(t testing.TB, m *Model, b Backend, w, h int) {
	attachClient(m, w, h)
	for i := range m.Grid() {
		m.Update(m.Grid()[i].start(t.Context(), b, m.lv().bodySize(i), m.cfg.Scrollback, m.wake)())
	}
	m.lv().relayout()
	m.Update(frameMsg{})
}

// attachClient attaches the test's client, view 0, at w×h, as if the
// panes had started: the tests start them themselves.
func attachClient(m *Model, w, h int) {
	m.layoutW, m.layoutH, m.started = w, h, true
	m.Update(AttachMsg{ID: 0, Width: w, Height: h})
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
