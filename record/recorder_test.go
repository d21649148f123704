package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/session/vt"
)

// TestRecorderMidStream starts recording a screen that already shows
// colours, the alternate screen and a scroll region, pauses, resizes and
// marks, and replays the cast to the same screen.
func TestRecorderMidStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pane.cast")
	var a *vt.Screen
	var got string
	synctest.Test(t, func(t *testing.T) {
		a = vt.New(40, 12)
		defer a.Close()
		a.Write("\x1b[1;35mbefore\x1b[?1049h\x1b[3;9r\x1b[44m\x1b[5;1Halt screen 日本\x1b[")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		rec := Start(a, f, RecorderOptions{IdleLimit: 2 * time.Second, Header: asciicast.Header{Title: "pane"}})
		a.Write("2mcontinued\r\n")
		time.Sleep(10 * time.Second) // shortened to the idle limit
		rec.Marker("here")
		a.Write("\x1b[32mafter the pause\n")
		rec.Pause()
		a.Write("\x1b[7mwhile paused\n") // not recorded; the keyframe at Resume shows it
		time.Sleep(time.Minute)
		a.Resize(30, 8)
		rec.Resume()
		a.Write("resumed\x1b[?1049lmain again")
		a.Resize(35, 9)
		a.Write("\x1b[3Hend")
		if err := rec.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := rec.Stop(); err != nil {
			t.Fatalf("second Stop: %v", err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b, events := replay(t, data)
		got = diff(a, b)
		var kinds strings.Builder
		for _, e := range events {
			kinds.WriteString(e.Kind)
		}
		if k := kinds.String(); !strings.Contains(k, "m") || !strings.Contains(k, "r") {
			t.Errorf("event kinds %q: want a marker and resizes", k)
		}
		if end := events[len(events)-1].Time; end > 5 {
			t.Errorf("cast runs %v s: the idle limit and the pause should cut it to about 2", end)
		}
	})
	if got != "" {
		t.Fatal(got)
	}
	asciinemaCat(t, path)
}

// slowWriter blocks until released, so the Recorder's queue fills.
type slowWriter struct {
	release chan struct{}
	once    sync.Once
	buf     bytes.Buffer
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { <-w.release })
	return w.buf.Write(p)
}

// TestRecorderFallsBehind: a writer that stalls makes the Recorder drop
// output within its bound, mark the cast, and resume from a keyframe.
func TestRecorderFallsBehind(t *testing.T) {
	a := vt.New(30, 6)
	defer a.Close()
	w := &slowWriter{release: make(chan struct{})}
	rec := Start(a, w, RecorderOptions{MaxPending: 4 << 10})
	for i := range 200 {
		a.Write(fmt.Sprintf("\x1b[3%dmline %d of a flood\r\n", i%8, i))
	}
	close(w.release)
	a.Write("\x1b[Hlast")
	err := rec.Stop()
	if !errors.Is(err, ErrDropped) {
		t.Fatalf("Stop: %v, want ErrDropped", err)
	}
	b, events := replay(t, w.buf.Bytes())
	if d := diff(a, b); d != "" {
		t.Fatal(d)
	}
	marked := false
	for _, e := range events {
		marked = marked || e.Kind == "m" && strings.Contains(e.Data, "dropped")
	}
	if !marked {
		t.Fatal("no marker where output was dropped")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

func TestRecorderWriteError(t *testing.T) {
	a := vt.New(10, 3)
	defer a.Close()
	rec := Start(a, failWriter{}, RecorderOptions{})
	a.Write("text")
	if err := rec.Stop(); !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("Stop: %v, want the write error", err)
	}
}

// TestRecorderControlsRace: Pause, Resume, Marker and Stop from several
// goroutines leave no tap behind and a cast that replays.
func TestRecorderControlsRace(t *testing.T) {
	a := vt.New(20, 5)
	defer a.Close()
	var out bytes.Buffer
	rec := Start(a, &out, RecorderOptions{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			a.Write(fmt.Sprintf("\x1b[3%dmline %d\r\n", i%8, i))
		}
	})
	wg.Go(func() {
		for range 50 {
			rec.Pause()
			rec.Resume()
			rec.Marker("m")
		}
	})
	wg.Wait()
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := replay(t, out.Bytes())
	if d := diff(a, b); d != "" {
		t.Fatal(d)
	}
	n := out.Len()
	rec.Resume() // after Stop: nothing
	a.Write("\x1b[Hafter stop")
	if out.Len() != n {
		t.Fatal("the recorder wrote after Stop")
	}
}
