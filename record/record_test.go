package record

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/session/vt"
	"go.uber.org/goleak"
)

// The shared coders are made before any synctest bubble (see Warm).
func TestMain(m *testing.M) {
	Warm()
	goleak.VerifyTestMain(m)
}

// asciinemaCat checks that asciinema (Debian's 2.2) reads the cast;
// `asciinema cat` insists on a terminal, which script provides.
func asciinemaCat(t *testing.T, path string) {
	t.Helper()
	for _, tool := range []string{"asciinema", "script"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
				t.Fatalf("%s required (SANDMUX_REQUIRE_ALL=1): %v", tool, err)
			}
			t.Skipf("SKIPPED: %s not installed, casts not checked with asciinema: %v", tool, err)
		}
	}
	out, err := exec.Command("script", "-qec", "asciinema cat "+path, "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("asciinema cat %s: %v\n%s", path, err, out)
	}
}

// replay decodes a cast and plays it into a fresh screen.
func replay(t *testing.T, cast []byte) (*vt.Screen, []asciicast.Event) {
	t.Helper()
	h, events, err := asciicast.Read(bytes.NewReader(cast))
	if err != nil {
		t.Fatalf("read cast: %v", err)
	}
	b := vt.New(h.Width, h.Height)
	t.Cleanup(b.Close)
	last := 0.0
	for i, e := range events {
		if e.Time < last {
			t.Fatalf("event %d at %v goes back from %v", i, e.Time, last)
		}
		last = e.Time
		switch e.Kind {
		case "o":
			b.Write(e.Data)
		case "r":
			c, r, ok := strings.Cut(e.Data, "x")
			cols, err1 := strconv.Atoi(c)
			rows, err2 := strconv.Atoi(r)
			if !ok || err1 != nil || err2 != nil {
				t.Fatalf("bad resize event %q", e.Data)
			}
			b.Resize(cols, rows)
		}
	}
	return b, events
}

// windowDiff saves ring's last d as a cast, replays it and returns how
// the replayed screen differs from a ("" when it is the same).
func windowDiff(t *testing.T, ring *Ring, a *vt.Screen, d time.Duration) string {
	t.Helper()
	var cast bytes.Buffer
	if err := ring.SaveLast(&cast, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	b, _ := replay(t, cast.Bytes())
	return diff(a, b)
}

// tapped returns a screen of cols x rows with a ring of opts attached,
// both closed when the test ends.
func tapped(t *testing.T, cols, rows int, opts RingOptions) (*vt.Screen, *Ring) {
	t.Helper()
	a := vt.New(cols, rows)
	ring := NewRing(opts, nil)
	ring.Attach(a)
	t.Cleanup(func() {
		ring.Close()
		a.Close()
	})
	return a, ring
}

// pace writes stream to s as a TUI does at 20 KB/s, 200 bytes every 10
// ms, looping, for the steps from to to (under synctest the sleeps take
// no time).
func pace(s *vt.Screen, stream string, from, to int) {
	for i := from; i < to; i++ {
		off := i * 200 % len(stream)
		s.Write(stream[off:min(off+200, len(stream))])
		time.Sleep(10 * time.Millisecond)
	}
}

// vimStream is the real vim session of session/vt's replay corpus, as
// text a screen takes.
func vimStream(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "session", "vt", "testdata", "replay", "vim.vt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// diff compares two screens cell by cell (links by URL), with cursor,
// modes and title.
func diff(a, b *vt.Screen) string {
	var fa, fb vt.Frame
	a.Snapshot(&fa)
	b.Snapshot(&fb)
	if fa.Cols != fb.Cols || fa.Rows != fb.Rows {
		return fmt.Sprintf("size %dx%d, want %dx%d", fb.Cols, fb.Rows, fa.Cols, fa.Rows)
	}
	link := func(f *vt.Frame, id uint16) string {
		if int(id) < len(f.Links) {
			return f.Links[id]
		}
		return ""
	}
	for y := range fa.Rows {
		for x := range fa.Cols {
			ca, cb := fa.Cell(x, y), fb.Cell(x, y)
			la, lb := link(&fa, ca.Link), link(&fb, cb.Link)
			ca.Link, cb.Link = 0, 0
			if ca.Flags&vt.FlagPlaceholder != 0 {
				ca, cb = vt.Cell{Flags: ca.Flags}, vt.Cell{Flags: cb.Flags}
			}
			if ca != cb || la != lb {
				return fmt.Sprintf("cell %d,%d: %+v, want %+v\nwant:\n%s\ngot:\n%s", x, y, cb, ca,
					vt.RenderText(nil, &fa), vt.RenderText(nil, &fb))
			}
		}
	}
	if fa.Cursor != fb.Cursor || fa.Modes != fb.Modes || fa.Title != fb.Title {
		return fmt.Sprintf("cursor %+v modes %+v title %q, want %+v %+v %q", fb.Cursor, fb.Modes, fb.Title,
			fa.Cursor, fa.Modes, fa.Title)
	}
	return ""
}

func writeCast(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out.cast")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSaveLastMidScreen saves a window that starts while colours, the
// alternate screen and a scroll region are active, and replays it.
func TestSaveLastMidScreen(t *testing.T) {
	var cast bytes.Buffer
	var want string
	var startCols int
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 40, 12, RingOptions{Every: time.Second})
		for i := range 30 {
			a.Write(fmt.Sprintf("\x1b[3%dmold line %d\x1b[m\r\n", i%8, i))
			time.Sleep(200 * time.Millisecond)
		}
		a.Write("\x1b[31;44mmain\x1b]2;busy\x07\x1b[?1049h\x1b[2;10r\x1b[1;33m")
		for i := range 20 {
			a.Write(fmt.Sprintf("\x1b[10;1Halt %d 日本 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", i))
			time.Sleep(300 * time.Millisecond)
		}
		a.Resize(30, 10) // inside the window
		a.Write("\x1b[4;1Hresized\x1b[3")
		time.Sleep(time.Second)
		a.Write("2mgreen")
		if err := ring.SaveLast(&cast, 4*time.Second, time.Now()); err != nil {
			t.Fatal(err)
		}
		startCols = 40
		b, _ := replay(t, cast.Bytes())
		want = diff(a, b)
	})
	if want != "" {
		t.Fatal(want)
	}
	h, events, err := asciicast.Read(bytes.NewReader(cast.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if h.Width != startCols || events[0].Time != 0 || events[len(events)-1].Time > 4 {
		t.Fatalf("header %+v, first event at %v, last at %v; want 40 wide, 0 and at most 4 s",
			h, events[0].Time, events[len(events)-1].Time)
	}
	asciinemaCat(t, writeCast(t, cast.Bytes()))
}

// TestSaveLastBeforeHistory: a window longer than what the ring keeps
// starts at the oldest keyframe.
func TestSaveLastBeforeHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 20, 5, RingOptions{Retain: 3 * time.Second, Every: time.Second})
		for i := range 20 {
			a.Write(fmt.Sprintf("\x1b[1;%dmline %d\r\n", 31+i%7, i))
			time.Sleep(500 * time.Millisecond)
		}
		var cast bytes.Buffer
		if err := ring.SaveLast(&cast, time.Hour, time.Now()); err != nil {
			t.Fatal(err)
		}
		b, events := replay(t, cast.Bytes())
		if d := diff(a, b); d != "" {
			t.Fatal(d)
		}
		if end := events[len(events)-1].Time; end > 5 {
			t.Fatalf("cast runs %v s; the ring keeps about 3", end)
		}
	})
}

func TestSaveLastEmpty(t *testing.T) {
	r := NewRing(RingOptions{}, nil)
	if err := r.SaveLast(&bytes.Buffer{}, time.Minute, time.Now()); err != ErrEmpty {
		t.Fatalf("err %v, want ErrEmpty", err)
	}
}

// TestSaveLastReplayCorpus records real programs' output (vim, less,
// man, ls, an agent; session/vt/testdata/replay) written in small pieces
// that cut sequences anywhere, so the ring's keyframes fall inside them,
// and saves windows of every length.
func TestSaveLastReplayCorpus(t *testing.T) {
	var stream strings.Builder
	for _, name := range []string{"vim", "less", "man", "agent", "ls"} {
		data, err := os.ReadFile(filepath.Join("..", "session", "vt", "testdata", "replay", name+".vt"))
		if err != nil {
			t.Fatal(err)
		}
		stream.WriteString(strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	text := stream.String()
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{Every: 500 * time.Millisecond})
		for i := 0; i < len(text); {
			j := min(i+97, len(text))
			for j < len(text) && !utf8.RuneStart(text[j]) {
				j++
			}
			a.Write(text[i:j])
			i = j
			time.Sleep(100 * time.Millisecond)
		}
		for _, d := range []time.Duration{300 * time.Millisecond, 1100 * time.Millisecond, 2500 * time.Millisecond,
			7 * time.Second, 13 * time.Second, time.Hour} {
			if msg := windowDiff(t, ring, a, d); msg != "" {
				t.Fatalf("window %v: %s", d, msg)
			}
		}
	})
}
