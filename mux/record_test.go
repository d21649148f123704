package mux

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
	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
)

// newRecShared is the shared side of n panes with rec's rings, each
// started as a server starts them, its start run here.
func newRecShared(t *testing.T, b *fakeBackend, n int, rec RecordConfig) *Shared {
	t.Helper()
	for i := range n {
		b.Output[paneName(i)] = ""
	}
	s, _ := newTestShared(t, b, n, Config{Scrollback: 100, Record: rec})
	return s
}

// runAll runs every command of cmd at once and delivers the recordings'
// messages to s until no recording waits for its file.
func runAll(t *testing.T, s *Shared, cmd tea.Cmd) {
	t.Helper()
	deliver := func(msg tea.Msg) tea.Cmd {
		switch msg.(type) {
		case recOpenedMsg, recNoticeMsg:
			return update(s, msg)
		}
		return nil
	}
	muxtest.RunAll(t, cmd, deliver, s.recordingsPending, s.StopWatching)
}

// recordingsPending: some recording waits for its file.
func (s *Shared) recordingsPending() bool {
	for _, p := range s.Grid() {
		if p.recs.opening {
			return true
		}
	}
	return false
}

// 200 panes flooding their real screens share one budget: the rings'
// memory together stays within retain_total, each ring counted once.
func TestRingsShareOneBudget(t *testing.T) {
	const panes, total = 200, 2 << 20
	s := newRecShared(t, newFakeBackend(), panes, RecordConfig{Retain: 5 * time.Minute, RetainBytes: 64 << 10, RetainTotal: total})
	var flood strings.Builder
	for i := range 600 {
		fmt.Fprintf(&flood, "\x1b[3%dmline %d of the flood, long enough to count\x1b[0m\r\n", i%8, i)
	}
	text := flood.String()
	var wg sync.WaitGroup
	work := make(chan *Pane)
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
	for _, p := range s.Grid() {
		if p.recs.ring == nil || seen[p.recs.ring] {
			t.Fatalf("pane %s has no ring of its own", p.Spec().Name)
		}
		seen[p.recs.ring] = true
		work <- p
	}
	close(work)
	wg.Wait()
	sum := 0
	for _, p := range s.Grid() {
		sum += p.recs.ring.Bytes()
	}
	got := s.rec.budget.Bytes()
	if got > total || got != sum || s.rec.budget.Max() != total {
		t.Errorf("the rings hold %d bytes, the budget counts %d of at most %d: want one budget of %d holding them all", sum, got, s.rec.budget.Max(), total)
	}
	if written := panes * 2 * len(text); written < 4*total {
		t.Fatalf("the flood (%d bytes) is too small to test the budget", written)
	}
	var cast bytes.Buffer
	if err := s.Grid()[panes-1].recs.ring.SaveLast(&cast, time.Minute, time.Now()); err != nil || !strings.Contains(cast.String(), "line 599") {
		t.Errorf("the last pane's ring saves %d bytes (%v), want its last lines", cast.Len(), err)
	}
}

// A recording started (prefix R, ctl record start) marks the pane's title with the time
// since; the session's end stops it, and the restart that follows does
// not record the new screen, which has a ring of its own.
func TestRecordStopsAtExitNotResumedByRestart(t *testing.T) {
	b := newFakeBackend()
	dir := t.TempDir()
	s := newRecShared(t, b, 1, RecordConfig{Retain: time.Minute, Dir: dir})
	var events []Event
	s.cfg.Events = func(e Event) { events = append(events, e) }
	p := s.Grid()[0]
	start, err := s.RecordStart(p.ID(), "", 0, nil) // as prefix R asks
	if err != nil {
		t.Fatal(err)
	}
	runAll(t, s, start)
	if p.recs.rec == nil {
		t.Fatal("the recording did not start")
	}
	if mark := p.RecMark(s.Now()); !strings.HasPrefix(mark, "REC 00:0") {
		t.Errorf("the title mark of a recorded pane is %q", mark)
	}
	path := p.recs.path
	if filepath.Dir(path) != dir || !strings.HasPrefix(filepath.Base(path), "apane-") {
		t.Errorf("prefix R records to %s: want apane-<time>.cast in %s", path, dir)
	}
	p.Screen().Write("before the exit\r\n")
	oldRing := p.recs.ring
	b.End(p.sess.ID(), providers.ExitStatus{}, false)
	cmd := update(s, infosMsg{infos: b.List()})
	if p.recs.rec != nil {
		t.Fatal("the recording goes on after its session exited")
	}
	runAll(t, s, cmd)
	s.rec.stops.Wait()
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
	restart, err := s.RestartPane(p.ID())
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
	s := newRecShared(t, newFakeBackend(), 2, RecordConfig{Retain: time.Minute, Dir: dir})
	for i, p := range s.Grid() {
		cmd, err := s.RecordStart(p.ID(), filepath.Join(dir, fmt.Sprintf("q%d.cast", i)), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		runAll(t, s, cmd)
		p.Screen().Write(fmt.Sprintf("pane %d's last words", i))
	}
	s.stopAllRecordings(s.clients.Settled())()
	for i, p := range s.Grid() {
		if p.recs.rec != nil {
			t.Errorf("pane %d is still recorded after the quit", i)
		}
		data, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("q%d.cast", i)))
		if !bytes.Contains(data, fmt.Appendf(nil, "pane %d's last words", i)) {
			t.Errorf("pane %d's cast lacks its last output:\n%s", i, data)
		}
	}
	if err := s.RecordErr(); err != nil {
		t.Errorf("RecordErr = %v", err)
	}
}
