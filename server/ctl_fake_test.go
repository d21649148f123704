package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
)

// fakeCore is a Core over a list the test sets: it records what it was
// asked, types into a per-session buffer with per-session modes, and
// publishes an event on the hub for every change, as the real core does.
type fakeCore struct {
	hub *control.Hub

	mu       sync.Mutex
	sessions []control.SessionInfo
	modes    map[string]vt.Modes
	typed    map[string][]byte
	calls    []string
	nextID   int
	// looked hears of every Sessions call, after its copy is taken, so a
	// test knows a waiter has looked and is about to block.
	looked chan struct{}
	// onLook, if set, runs in Sessions after the copy (outside the lock).
	onLook func()
}

func newFakeCore(hub *control.Hub, sessions ...control.SessionInfo) *fakeCore {
	f := &fakeCore{hub: hub, modes: map[string]vt.Modes{}, typed: map[string][]byte{}, looked: make(chan struct{}, 1<<16)}
	f.sessions = sessions
	f.renumber()
	return f
}

func (f *fakeCore) renumber() {
	for i := range f.sessions {
		f.sessions[i].Number = i + 1
	}
}

func (f *fakeCore) Clients() int   { return 0 }
func (f *fakeCore) Config() string { return "" }

func (f *fakeCore) List() []control.SessionInfo { return f.Sessions() }

func (f *fakeCore) Sessions() []control.SessionInfo {
	f.mu.Lock()
	list := slices.Clone(f.sessions)
	hook := f.onLook
	f.mu.Unlock()
	select {
	case f.looked <- struct{}{}:
	default: // a test that does not count looks lets them go
	}
	if hook != nil {
		hook()
	}
	return list
}

func (f *fakeCore) record(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeCore) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeCore) add(name, provider string) control.SessionInfo {
	f.mu.Lock()
	f.nextID++
	si := control.SessionInfo{ID: fmt.Sprintf("new%d", f.nextID), Name: name, Provider: provider, State: "starting", Phase: "starting", Started: time.Now()}
	f.sessions = append(f.sessions, si)
	f.renumber()
	si = f.sessions[len(f.sessions)-1]
	f.mu.Unlock()
	f.hub.Publish(control.Event{Kind: control.EventStarted, Time: time.Now(), Session: &si})
	return si
}

func (f *fakeCore) Run(_ context.Context, name string, argv []string) (control.SessionInfo, error) {
	f.record("run %s %q", name, argv)
	if name == "" {
		name = argv[0]
	}
	return f.add(name, "local"), nil
}

func (f *fakeCore) Start(_ context.Context, sandbox string) (control.SessionInfo, error) {
	f.record("start %s", sandbox)
	if sandbox != "box" {
		return control.SessionInfo{}, fmt.Errorf("no sandbox %q in the config: sandmux check lists them", sandbox)
	}
	return f.add(sandbox, "docker"), nil
}

// setState changes a session's state and publishes the change.
func (f *fakeCore) setState(id, state string) {
	f.mu.Lock()
	var ev *control.SessionInfo
	for i := range f.sessions {
		if f.sessions[i].ID == id {
			f.sessions[i].State, f.sessions[i].Phase = state, state // the fake's states are phases
			si := f.sessions[i]
			ev = &si
		}
	}
	f.mu.Unlock()
	f.hub.Publish(control.Event{Kind: control.EventState, Time: time.Now(), Session: ev})
}

// Report sets the session's state as a report does, and records it.
func (f *fakeCore) Report(id string, st status.State, reason string, ttl time.Duration) (control.SessionInfo, error) {
	f.record("report %s %s %q %s", id, st, reason, ttl)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.sessions {
		if f.sessions[i].ID == id {
			f.sessions[i].State, f.sessions[i].Reason = string(st), reason
			return f.sessions[i], nil
		}
	}
	return control.SessionInfo{}, fmt.Errorf("no session %s", id)
}

// remove drops a session from the list, as a finished close does.
func (f *fakeCore) remove(id string) {
	f.mu.Lock()
	f.sessions = slices.DeleteFunc(f.sessions, func(si control.SessionInfo) bool { return si.ID == id })
	f.renumber()
	f.mu.Unlock()
	f.hub.Publish(control.Event{Kind: control.EventClosed, Time: time.Now()})
}

func (f *fakeCore) Close(_ context.Context, id string) error {
	f.record("close %s", id)
	f.remove(id)
	return nil
}

func (f *fakeCore) Kill(_ context.Context, id string) error {
	f.record("kill %s", id)
	f.setState(id, "killed")
	return nil
}

func (f *fakeCore) Restart(id string) error {
	f.record("restart %s", id)
	f.mu.Lock()
	var state string
	for _, si := range f.sessions {
		if si.ID == id {
			state = si.State
		}
	}
	f.mu.Unlock()
	if state == "running" {
		return errors.New("it is still running: kill or close it first")
	}
	f.setState(id, "running")
	return nil
}

func (f *fakeCore) Input(id string, encode func(vt.Modes) []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, si := range f.sessions {
		if si.ID == id && si.State == "exited" && si.Name != "1" {
			return fmt.Errorf("it has exited: restart it with sandmux ctl restart %d", si.Number)
		}
	}
	f.typed[id] = append(f.typed[id], encode(f.modes[id])...)
	return nil
}

func (f *fakeCore) setModes(id string, m vt.Modes) {
	f.mu.Lock()
	f.modes[id] = m
	f.mu.Unlock()
}

// take returns what was typed into id and forgets it.
func (f *fakeCore) take(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.typed[id]
	delete(f.typed, id)
	return string(b)
}

func (f *fakeCore) Screen(id string, ansi, scrollback bool) (string, error) {
	return fmt.Sprintf("screen of %s ansi=%v scrollback=%v\n", id, ansi, scrollback), nil
}

func (f *fakeCore) Quit(kill bool) error {
	f.record("quit kill=%v", kill)
	return nil
}

// recordingHandler passes requests on and reports each Handle that
// returned, so a test sees the handler finish even when no client reads.
type recordingHandler struct {
	control.Handler
	returned chan control.Request
}

func (r recordingHandler) Handle(ctx context.Context, req control.Request) control.Reply {
	rep := r.Handler.Handle(ctx, req)
	r.returned <- req
	return rep
}

// harness is a handler over a fake core behind a real control.Server on
// a real Unix socket.
type harness struct {
	core     *fakeCore
	hub      *control.Hub
	path     string
	returned chan control.Request
}

// testSessions are three panes: two share a name, one is named like a
// number to show that numbers win.
func testSessions() []control.SessionInfo {
	return []control.SessionInfo{
		{ID: "a1", Name: "web", Provider: "local", State: "running", Phase: "running"},
		{ID: "b2", Name: "web", Provider: "docker", State: "running", Phase: "running"},
		{ID: "c3", Name: "1", Provider: "local", State: "exited", Phase: "exited"},
	}
}

func serve(t *testing.T) *harness {
	t.Helper()
	hub := control.NewHub()
	h := &harness{core: newFakeCore(hub, testSessions()...), hub: hub, returned: make(chan control.Request, 1<<16)}
	h.path = filepath.Join(t.TempDir(), "ctl.sock")
	l, err := endpoint.Listen(h.path)
	if err != nil {
		t.Fatal(err)
	}
	srv := control.NewServer(recordingHandler{NewHandler(h.core, hub), h.returned}, hub, endpoint.CheckPeer)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return h
}

func (h *harness) dial(t *testing.T) *control.Client {
	t.Helper()
	conn, err := endpoint.Dial(h.path)
	if err != nil {
		t.Fatal(err)
	}
	c := control.NewClient(conn)
	t.Cleanup(func() { _ = c.Close() }) // Best effort: the test is over.
	return c
}

// call sends one request on a fresh connection.
func (h *harness) call(t *testing.T, req control.Request) (control.Reply, error) {
	t.Helper()
	return h.dial(t).Call(t.Context(), req)
}

// must sends req and fails the test on an error.
func (h *harness) must(t *testing.T, req control.Request) control.Reply {
	t.Helper()
	rep, err := h.call(t, req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Op, req.Session, err)
	}
	return rep
}
