package ui

import (
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
)

// newRecModel builds a model of n panes with rec's rings, each started
// as a server starts them, at its client's attach, its start run here.
func newRecModel(t *testing.T, b *fakeBackend, n int, rec RecordConfig) *Model {
	t.Helper()
	var specs []mux.PaneSpec
	for i := range n {
		name := paneName(i)
		specs = append(specs, mux.PaneSpec{Name: name, Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
		b.Output[name] = ""
	}
	m := New(t.Context(), Config{Prefix: "ctrl+b", FPS: 60, Scrollback: 100, Record: rec}, b, specs)
	for _, start := range attachClient(m, 160, 50) {
		m.Update(start())
	}
	t.Cleanup(func() {
		m.StopWatching()
		for _, p := range m.Grid() {
			if p.Screen() != nil {
				p.Screen().Close()
			}
		}
	})
	return m
}

// runAll runs every command of cmd at once and delivers what they return
// to m, as the program would, until no recording waits for its file.
func runAll(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	deliver := func(msg tea.Msg) tea.Cmd {
		_, next := m.Update(msg)
		return next
	}
	muxtest.RunAll(t, cmd, deliver, m.recordingsPending, m.StopWatching)
}

// recordingsPending: some recording waits for its file.
func (m *Model) recordingsPending() bool {
	for _, p := range m.Grid() {
		if p.RecMark(m.Now()) == "REC starting" {
			return true
		}
	}
	for _, r := range m.viewRecs {
		if r == nil {
			return true
		}
	}
	return false
}

// Prefix R records the focused pane and its title marks it with the time
// since.
func TestRecordKeyMarksTheTitle(t *testing.T) {
	m := newRecModel(t, newFakeBackend(), 1, RecordConfig{Retain: time.Minute, Dir: t.TempDir()})
	p := m.Grid()[0]
	press(m, "ctrl+b")
	runAll(t, m, press(m, "R"))
	if !p.Recording() {
		t.Fatalf("prefix R did not record: notice %q", m.lv().notice)
	}
	if title := m.lv().title(0, p, 80); !strings.Contains(title, "REC 00:0") {
		t.Errorf("the title of a recorded pane lacks its mark: %q", title)
	}
	stop, err := m.RecordStop(p.ID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	runAll(t, m, stop)
}

// A read-only client may not record, mark or save: those touch the
// server's files.
func TestRecordKeysReadOnlyRefused(t *testing.T) {
	dir := t.TempDir()
	m := newRecModel(t, newFakeBackend(), 1, RecordConfig{Retain: time.Minute, Dir: dir})
	m.Update(AttachMsg{ID: 7, Width: 80, Height: 24, ReadOnly: true})
	v := m.viewByID(7)
	for _, key := range []string{"R", "M", "S", "V"} {
		m.Update(ClientMsg{ID: 7, Msg: keyMsg("ctrl+b")})
		_, cmd := m.Update(ClientMsg{ID: 7, Msg: keyMsg(key)})
		if v.notice != "read-only" || m.Grid()[0].RecMark(m.Now()) != "" || m.viewRecs[7] != nil || len(m.viewRecs) != 0 {
			t.Errorf("prefix %s from a read-only client: notice %q, cmd %v", key, v.notice, cmd != nil)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a read-only client's keys wrote %d files", len(ents))
	}
}

// A second view recording asked for while the first file still opens is
// refused, and a stop meanwhile drops the recording and its empty file.
func TestViewRecordingStartsOnce(t *testing.T) {
	dir := t.TempDir()
	m, tm, _ := signalsModel(t, func(c *Config) { c.Record.Dir = dir })
	defer tm.Close()
	id := m.lv().id
	open, err := m.startViewRecording(id, "", nil, mux.NoView)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.startViewRecording(id, "", nil, mux.NoView); err == nil || !strings.Contains(err.Error(), "starting already") {
		t.Fatalf("a second start while the first opens: %v", err)
	}
	if _, err := m.RecordViewStop(id, nil); err == nil || !strings.Contains(err.Error(), "still starting") {
		t.Errorf("ctl stop while it opens: %v", err)
	}
	m.stopViewRecording(id, "the client left", nil, mux.NoView) // a detach meanwhile
	msg := open().(viewOpenedMsg)
	if cleanup := m.viewOpened(msg); cleanup != nil {
		cleanup()
	}
	if r, ok := m.viewRecs[id]; ok {
		t.Errorf("a recording stopped while opening went on: %+v", r)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
