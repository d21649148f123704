package replay

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

// drawing is what a generated recording draws: colours, a scroll region,
// the alternate screen and back, wide characters, a cursor move.
var drawing = []string{
	"\x1b[1;31mred\x1b[0m plain\r\n",
	"\x1b[2;4r\x1b[2Hregion\r\n1\r\n2\r\n3\r\n\x1b[r",
	"\x1b[?1049h\x1b[Halternate\x1b[?1049l",
	"日本語 wide\r\n",
	"\x1b[6;3Hmoved",
}

// castOf writes drawing as a recording, an event every 10 ms.
func castOf(t *testing.T, cols, rows int) string {
	var events []event
	for i, d := range drawing {
		events = append(events, event{at: time.Duration(i+1) * 10 * time.Millisecond, data: d})
	}
	return writeCast(t, cols, rows, 0, events...)
}

// wantScreen is the screen drawing leaves on a terminal of that size.
func wantScreen(cols, rows int) string {
	s := vt.New(cols, rows)
	defer s.Close()
	for _, d := range drawing {
		s.Write(d)
	}
	return string(s.Dump(nil, false, true))
}

// startReplay starts a session on the replay provider, its output parsed
// into a screen; the cleanup shuts the manager down and waits for it.
func startReplay(t *testing.T, opts map[string]any, sinks ...session.Sink) (*session.Manager, *session.Session, *vt.Screen, error) {
	t.Helper()
	m := session.NewManager(providers.Table{Descriptor.Name: Descriptor.New(providers.Deps{})})
	screen := vt.New(30, 8)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		m.Wait()
		screen.Close()
	})
	sess, err := m.Start(t.Context(), Descriptor.Name, providers.Spec{Name: "review", Size: providers.Size{Cols: 30, Rows: 8}, Options: opts},
		session.Options{Screen: screen, Sinks: sinks})
	return m, sess, screen, err
}

// A session on a replay ends on the screen the recording drew, and exits 0.
func TestSessionPlays(t *testing.T) {
	for _, speed := range []float64{0, 1} {
		m, sess, screen, err := startReplay(t, options(castOf(t, 30, 8), speed, false))
		if err != nil {
			t.Fatal(err)
		}
		<-sess.Exited()
		if err := m.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Wait() // every pump joined: the screen has all of the output
		if got, want := string(screen.Dump(nil, false, true)), wantScreen(30, 8); got != want {
			t.Errorf("speed %v: screen\n%q\nwant\n%q", speed, got, want)
		}
		if info := sess.Info(); !info.ExitKnown || info.Exit.Code != 0 {
			t.Errorf("speed %v: info %+v, want exit 0", speed, info)
		}
	}
}

// rounds counts how often a text was output.
type rounds struct {
	mu    sync.Mutex
	text  strings.Builder
	twice chan struct{}
	once  sync.Once
}

func (r *rounds) Output(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.text.WriteString(s)
	if strings.Count(r.text.String(), "moved") >= 2 {
		r.once.Do(func() { close(r.twice) })
	}
}

// A looping replay plays again and goes on until it is closed.
func TestSessionLoops(t *testing.T) {
	r := &rounds{twice: make(chan struct{})}
	m, sess, _, err := startReplay(t, options(castOf(t, 30, 8), MaxSpeed, true), r)
	if err != nil {
		t.Fatal(err)
	}
	<-r.twice
	select {
	case <-sess.Exited():
		t.Fatal("a looping replay exited")
	default:
	}
	if err := m.Close(t.Context(), sess.ID()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if info := sess.Info(); info.State != session.Closed {
		t.Errorf("after Close: %+v", info)
	}
}

// Killing a replay in the middle of a long pause ends it at once.
func TestSessionKill(t *testing.T) {
	path := writeCast(t, 30, 8, 0, event{at: 0, data: "first"}, event{at: time.Hour, data: "never"})
	r := &rounds{twice: make(chan struct{})}
	m, sess, _, err := startReplay(t, options(path, 1, false), r)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := m.Kill(t.Context(), sess.ID()); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	info := sess.Info()
	if !info.Killed || time.Since(start) > 5*time.Second {
		t.Errorf("after Kill (%v): %+v", time.Since(start), info)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.Contains(r.text.String(), "never") {
		t.Errorf("output after the kill: %q", r.text.String())
	}
}

// A missing file fails the start with an error naming the file.
func TestSessionBadFile(t *testing.T) {
	missing := t.TempDir() + "/gone.cast"
	m, _, _, err := startReplay(t, options(missing, 1, false))
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Start = %v, want an error naming %s", err, missing)
	}
	if len(m.List()) != 0 {
		t.Errorf("sessions after a failed start: %+v", m.List())
	}
}
