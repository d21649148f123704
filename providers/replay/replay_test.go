package replay

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

func open(t *testing.T, opts map[string]any) providers.PTY {
	t.Helper()
	p, err := New().Open(t.Context(), providers.Spec{Name: "review", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// readAt reads one chunk and says when (in the bubble's time) it came.
func readAt(t *testing.T, p providers.PTY, start time.Time) (string, time.Duration) {
	t.Helper()
	buf := make([]byte, 64)
	n, err := p.Read(buf)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return string(buf[:n]), time.Since(start)
}

// Output comes at the recording's pace divided by the speed, pauses capped
// by the header's idle limit; other events draw nothing; at the end Read
// gives EOF and Wait exit 0.
func TestPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := writeCast(t, 20, 3, 4,
			event{at: time.Second, data: "one"},
			event{at: 2 * time.Second, kind: "i", data: "typed"},
			event{at: 3 * time.Second, kind: "r", data: "30x4"},
			event{at: 5 * time.Second, data: "two"},
			event{at: 15 * time.Second, kind: "m", data: "mark"},
			event{at: 25 * time.Second, data: "three"})
		p := open(t, options(path, 2, false))
		start := time.Now()
		for _, want := range []struct {
			text string
			at   time.Duration
		}{{"one", 500 * time.Millisecond}, {"two", 2500 * time.Millisecond}, {"three", 4500 * time.Millisecond}} {
			if text, at := readAt(t, p, start); text != want.text || at != want.at {
				t.Errorf("read %q at %v, want %q at %v", text, at, want.text, want.at)
			}
		}
		if alive, _ := p.GroupAlive(); !alive {
			t.Error("the replay ended before its end was read")
		}
		if n, err := p.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("Read at the end = %d, %v; want io.EOF", n, err)
		}
		if st, err := p.Wait(t.Context()); err != nil || st != (providers.ExitStatus{Code: 0}) {
			t.Errorf("Wait = %v, %v; want exit 0", st, err)
		}
		if alive, _ := p.GroupAlive(); alive {
			t.Error("GroupAlive after the end")
		}
	})
}

// Speed 0 plays at once; a long event comes out in pieces of the reader's
// buffer.
func TestSpeedZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		long := strings.Repeat("x", 100)
		p := open(t, options(writeCast(t, 20, 3, 0, event{at: time.Hour, data: long}), 0, false))
		start := time.Now()
		got, err := io.ReadAll(p)
		if err != nil || string(got) != long || time.Since(start) != 0 {
			t.Errorf("ReadAll = %d bytes, %v after %v", len(got), err, time.Since(start))
		}
	})
}

// Close and an ending signal wake a Read in the middle of a pause at once,
// and Wait says how the replay ended; a harmless signal changes nothing.
func TestStop(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(providers.PTY)
		want providers.ExitStatus
	}{
		{"close", func(p providers.PTY) { _ = p.Close() }, providers.ExitStatus{Code: -1, Signal: syscall.SIGHUP}},
		{"sigterm", func(p providers.PTY) { _ = p.Signal(syscall.SIGTERM) }, providers.ExitStatus{Code: -1, Signal: syscall.SIGTERM}},
		{"sigkill", func(p providers.PTY) { _ = p.Signal(syscall.SIGKILL) }, providers.ExitStatus{Code: -1, Signal: syscall.SIGKILL}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := open(t, options(writeCast(t, 20, 3, 0, event{at: time.Hour, data: "late"}), 1, false))
				_ = p.Signal(syscall.SIGWINCH)
				_ = p.Signal(0)
				done := make(chan error)
				go func() {
					_, err := p.Read(make([]byte, 8))
					done <- err
				}()
				synctest.Wait() // the Read waits out its pause
				start := time.Now()
				c.stop(p)
				if err := <-done; err != io.EOF || time.Since(start) != 0 {
					t.Errorf("Read = %v after %v, want io.EOF at once", err, time.Since(start))
				}
				if st, err := p.Wait(t.Context()); err != nil || st != c.want {
					t.Errorf("Wait = %v, %v; want %v", st, err, c.want)
				}
				if _, err := p.Read(make([]byte, 8)); err != io.EOF {
					t.Errorf("Read after the stop = %v", err)
				}
			})
		})
	}
}

// A loop plays the recording again after a pause, from a reset screen, and
// never exits by itself.
func TestLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := open(t, options(writeCast(t, 20, 3, 0, event{at: time.Second, data: "a"}, event{at: 2 * time.Second, data: "b"}), 1, true))
		start := time.Now()
		var got []string
		for range 6 {
			text, at := readAt(t, p, start)
			got = append(got, text+"@"+at.String())
		}
		want := "a@1s b@2s \x1bc@4s a@5s b@6s \x1bc@8s"
		if strings.Join(got, " ") != want {
			t.Errorf("reads = %q, want %q", strings.Join(got, " "), want)
		}
		if alive, _ := p.GroupAlive(); !alive {
			t.Error("a loop ended")
		}
	})
}

// Wait is bounded by its context only.
func TestWaitContext(t *testing.T) {
	p := open(t, options(writeCast(t, 20, 3, 0, event{at: time.Hour, data: "late"}), 1, false))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want the context's error", err)
	}
}

// A file that cannot be played fails the open, naming the file; one that
// breaks midway shows why in the pane and exits 1.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	notCast := filepath.Join(dir, "notes.txt")
	v1 := filepath.Join(dir, "v1.cast")
	broken := filepath.Join(dir, "broken.cast")
	for path, text := range map[string]string{
		notCast: "hello\n",
		v1:      `{"version": 1, "width": 80, "height": 24, "stdout": []}`,
		broken:  `{"version": 2, "width": 80, "height": 24}` + "\n" + `[0, "o", "ok"]` + "\n" + `[1, "o"]` + "\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ file, want string }{
		{filepath.Join(dir, "missing.cast"), "missing.cast: no such file"},
		{dir, dir + ": not a regular file"},
		{notCast, notCast + ": read asciicast header"},
		{v1, v1 + ": read asciicast: version 1"},
	} {
		_, err := New().Open(t.Context(), providers.Spec{Name: "review", Options: options(c.file, 1, false)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s) = %v, want it to say %q", c.file, err, c.want)
		}
	}
	if _, err := New().Open(t.Context(), providers.Spec{Name: "review", Options: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `replay for "review": replay option file: missing`) {
		t.Errorf("Open without a file = %v", err)
	}

	p := open(t, options(broken, 0, false))
	out, err := io.ReadAll(p)
	if err != nil || !strings.HasPrefix(string(out), "ok\r\n") || !strings.Contains(string(out), "[replay of "+broken+": read asciicast line 3: an event has 3 elements") {
		t.Errorf("output = %q, %v; want the event, then the error", out, err)
	}
	if st, err := p.Wait(t.Context()); err != nil || st.Code != 1 {
		t.Errorf("Wait = %v, %v; want exit 1", st, err)
	}
}
