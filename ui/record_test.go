package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
)

// newRecModel builds a model of n panes with rec's rings, each started
// as a server starts them (startPane), its start run here.
func newRecModel(t *testing.T, b *fakeBackend, n int, rec RecordConfig) *Model {
	t.Helper()
	var specs []mux.PaneSpec
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		specs = append(specs, mux.PaneSpec{Name: name, Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
		b.output[name] = ""
	}
	m := New(t.Context(), Config{Prefix: "ctrl+b", FPS: 60, Scrollback: 100, Record: rec}, b, specs)
	attachClient(m, 160, 50)
	for i := range m.Grid() {
		m.Update(startOf(m.startPane(i)))
	}
	t.Cleanup(func() {
		m.stopWatching()
		for _, p := range m.Grid() {
			if p.recs.rec != nil {
				_ = p.recs.rec.Stop()
			}
			if p.recs.ring != nil {
				p.recs.ring.Close()
			}
			if p.Screen() != nil {
				p.Screen().Close()
			}
		}
	})
	return m
}

// startOf runs the start command among what startPane returned (the
// watch, which waits for output, is left out) and returns its message.
func startOf(cmd tea.Cmd) tea.Msg {
	msg := cmd()
	for {
		batch, ok := msg.(tea.BatchMsg)
		if !ok {
			return msg
		}
		msg = batch[len(batch)-1]() // the start comes last
	}
}

// runAll runs every command of cmd at once, as Bubble Tea does, and
// delivers what they return to m until none is left but the timers and
// the watch, which end with the model (the cleanup's stopWatching).
func runAll(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	var wg sync.WaitGroup
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		wg.Go(func() {
			msg := c()
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, sub := range batch {
					run(sub)
				}
				return
			}
			if msg != nil {
				msgs <- msg
			}
		})
	}
	run(cmd)
	t.Cleanup(func() { m.stopWatching(); wg.Wait() })
	timeout := time.After(10 * time.Second)
	for m.recordingsPending() {
		select {
		case msg := <-msgs:
			switch msg.(type) {
			case recOpenedMsg, viewOpenedMsg, recNoticeMsg:
				_, next := m.Update(msg)
				run(next)
			}
		case <-timeout:
			t.Fatal("a recording's file was never opened")
		}
	}
}

// recordingsPending: some recording waits for its file.
func (m *Model) recordingsPending() bool {
	for _, p := range m.Grid() {
		if p.recs.opening {
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

// 200 panes flooding their real screens share one budget: the rings'
// memory together stays within retain_total, each ring counted once.
func TestRingsShareOneBudget(t *testing.T) {
	const panes, total = 200, 2 << 20
	m := newRecModel(t, newFakeBackend(), panes, RecordConfig{Retain: 5 * time.Minute, RetainBytes: 64 << 10, RetainTotal: total})
	var flood strings.Builder
	for i := range 600 {
		fmt.Fprintf(&flood, "\x1b[3%dmline %d of the flood, long enough to count\x1b[0m\r\n", i%8, i)
	}
	text := flood.String()
	var wg sync.WaitGroup
	work := make(chan *pane)
	for range 4 {
		wg.Go(func() {
			for p := range work {
				for range 2 {
					p.Screen().Write(text)
				}
			}
		})
	}
	seen := map[any]bool{}
	for _, p := range m.Grid() {
		if p.recs.ring == nil || seen[p.recs.ring] {
			t.Fatalf("pane %s has no ring of its own", p.Spec().Name)
		}
		seen[p.recs.ring] = true
		work <- p
	}
	close(work)
	wg.Wait()
	sum := 0
	for _, p := range m.Grid() {
		sum += p.recs.ring.Bytes()
	}
	got := m.rec.budget.Bytes()
	if got > total || got != sum || m.rec.budget.Max() != total {
		t.Errorf("the rings hold %d bytes, the budget counts %d of at most %d: want one budget of %d holding them all", sum, got, m.rec.budget.Max(), total)
	}
	if written := panes * 2 * len(text); written < 4*total {
		t.Fatalf("the flood (%d bytes) is too small to test the budget", written)
	}
	var cast bytes.Buffer
	if err := m.Grid()[panes-1].recs.ring.SaveLast(&cast, time.Minute, time.Now()); err != nil || !strings.Contains(cast.String(), "line 599") {
		t.Errorf("the last pane's ring saves %d bytes (%v), want its last lines", cast.Len(), err)
	}
}

// A read-only client may not record, mark or save: those touch the
// server's files.
func TestRecordKeysReadOnlyRefused(t *testing.T) {
	m := newRecModel(t, newFakeBackend(), 1, RecordConfig{Retain: time.Minute, Dir: t.TempDir()})
	m.Update(AttachMsg{ID: 7, Width: 80, Height: 24, ReadOnly: true})
	v := m.viewByID(7)
	for _, key := range []string{"R", "M", "S", "V"} {
		m.Update(ClientMsg{ID: 7, Msg: keyMsg("ctrl+b")})
		_, cmd := m.Update(ClientMsg{ID: 7, Msg: keyMsg(key)})
		if v.notice != "read-only" || m.Grid()[0].recs.opening || m.viewRecs[7] != nil || len(m.viewRecs) != 0 {
			t.Errorf("prefix %s from a read-only client: notice %q, cmd %v", key, v.notice, cmd != nil)
		}
	}
	if ents, _ := os.ReadDir(m.cfg.Record.Dir); len(ents) != 0 {
		t.Errorf("a read-only client's keys wrote %d files", len(ents))
	}
}

// Prefix R records the focused pane, its title marks it with the time
// since; the session's end stops it, and the restart that follows does
// not record the new screen, which has a ring of its own.
func TestRecordStopsAtExitNotResumedByRestart(t *testing.T) {
	b := newFakeBackend()
	dir := t.TempDir()
	m := newRecModel(t, b, 1, RecordConfig{Retain: time.Minute, Dir: dir})
	var events []Event
	m.cfg.Events = func(e Event) { events = append(events, e) }
	p := m.Grid()[0]
	press(m, "ctrl+b")
	runAll(t, m, press(m, "R"))
	if p.recs.rec == nil {
		t.Fatalf("prefix R did not record: notice %q", m.lv().notice)
	}
	if title := m.lv().title(0, p, 80); !strings.Contains(title, "REC 00:0") {
		t.Errorf("the title of a recorded pane lacks its mark: %q", title)
	}
	path := p.recs.path
	if filepath.Dir(path) != dir || !strings.HasPrefix(filepath.Base(path), "p0-") {
		t.Errorf("prefix R records to %s: want p0-<time>.cast in %s", path, dir)
	}
	p.Screen().Write("before the exit\r\n")
	oldRing := p.recs.ring
	b.end(p.sess.ID(), providers.ExitStatus{}, false)
	_, cmd := m.Update(infosMsg{infos: b.List()})
	if p.recs.rec != nil {
		t.Fatal("the recording goes on after its session exited")
	}
	runAll(t, m, cmd)
	m.rec.stops.Wait()
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte("before the exit")) {
		t.Errorf("the stopped cast (%v) lacks the last output:\n%s", err, data)
	}
	if _, _, err := asciicast.Read(bytes.NewReader(data)); err != nil {
		t.Errorf("the stopped cast does not read: %v", err)
	}
	if !hasRecEvent(events, "stopped "+path+" (the session closed)") {
		t.Errorf("no recording stopped event: %+v", events)
	}
	oldScreen := p.Screen()
	restart, err := m.RestartPane(p.ID())
	if err != nil {
		t.Fatal(err)
	}
	_ = restart // the restart's commands close the old session and start a new one
	if p.recs.rec != nil || p.recs.opening || p.recs.ring == nil || p.recs.ring == oldRing {
		t.Errorf("after the restart: recording %v, ring %p (old %p): want no recording and a new ring", p.recs.rec != nil, p.recs.ring, oldRing)
	}
	oldRing.Close() // the restart's commands would have
	oldScreen.Close()
}

func hasRecEvent(events []Event, detail string) bool {
	for _, e := range events {
		if e.Kind == EventRecording && e.Detail == detail {
			return true
		}
	}
	return false
}

// At the quit every recording is stopped, and flushed before the
// function the quit runs returns.
func TestQuitStopsRecordings(t *testing.T) {
	dir := t.TempDir()
	m := newRecModel(t, newFakeBackend(), 2, RecordConfig{Retain: time.Minute, Dir: dir})
	for i, p := range m.Grid() {
		cmd, err := m.RecordStart(p.ID(), filepath.Join(dir, fmt.Sprintf("q%d.cast", i)), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		runAll(t, m, cmd)
		p.Screen().Write(fmt.Sprintf("pane %d's last words", i))
	}
	m.stopAllRecordings(m.Settled())()
	for i, p := range m.Grid() {
		if p.recs.rec != nil {
			t.Errorf("pane %d is still recorded after the quit", i)
		}
		data, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("q%d.cast", i)))
		if !bytes.Contains(data, fmt.Appendf(nil, "pane %d's last words", i)) {
			t.Errorf("pane %d's cast lacks its last output:\n%s", i, data)
		}
	}
	if err := m.RecordErr(); err != nil {
		t.Errorf("RecordErr = %v", err)
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
