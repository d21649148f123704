package asciicast

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// A recording with every kind of event, blank lines, CRLF line ends and a
// last line without its newline reads as written.
func TestReadKinds(t *testing.T) {
	cast := `{"version": 2, "width": 80, "height": 24, "idle_time_limit": 1.5, "theme": {"fg": "#fff"}}` + "\n" +
		`[0.5, "o", "hi\r\n"]` + "\r\n\n" +
		`[1, "i", "q"]` + "\n" +
		`[1.25, "r", "100x30"]` + "\n" +
		`[2, "m", "setup done"]` + "\n" +
		`[2, "x-future", ""]`
	h, events, err := Read(strings.NewReader(cast))
	if err != nil {
		t.Fatal(err)
	}
	if h.Width != 80 || h.Height != 24 || h.IdleTimeLimit != 1.5 {
		t.Errorf("header = %+v", h)
	}
	want := []Event{{0.5, "o", "hi\r\n"}, {1, "i", "q"}, {1.25, "r", "100x30"}, {2, "m", "setup done"}, {2, "x-future", ""}}
	if len(events) != len(want) {
		t.Fatalf("events = %+v, want %+v", events, want)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, events[i], want[i])
		}
	}
	if c, r, ok := events[2].Size(); !ok || c != 100 || r != 30 {
		t.Errorf("Size() = %d, %d, %v", c, r, ok)
	}
	for _, e := range []Event{{Kind: "r", Data: "100"}, {Kind: "r", Data: "0x5"}, {Kind: "o", Data: "1x1"}} {
		if _, _, ok := e.Size(); ok {
			t.Errorf("%+v has a size", e)
		}
	}
}

// The writer's resize events read back as sizes.
func TestReadWriterResize(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Width: 10, Height: 5}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.WriteEvent(time.Second, KindResize, "20x6")
	w.WriteEvent(2*time.Second, KindMarker, "")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	_, events, err := Read(&buf)
	if err != nil || len(events) != 2 {
		t.Fatalf("Read = %+v, %v", events, err)
	}
	if c, r, ok := events[0].Size(); !ok || c != 20 || r != 6 || events[1].Kind != KindMarker {
		t.Errorf("events = %+v", events)
	}
}

// Each broken file fails with an error that says where and what.
func TestReadErrors(t *testing.T) {
	header := `{"version": 2, "width": 80, "height": 24}` + "\n"
	for _, c := range []struct{ name, cast, want string }{
		{"empty", "", "empty"},
		{"blank", "\n\n", "header"},
		{"not json", "hello\n", "header (line 1)"},
		{"v1", `{"version": 1, "width": 80, "height": 24}`, "version 1"},
		{"v3", `{"version": 3, "term": {"cols": 80, "rows": 24}}`, "version 3"},
		{"no size", `{"version": 2}`, "size 0x0"},
		{"bad event", header + `[0, "o", "a"]` + "\n" + `[0, "o"]`, "line 3: an event has 3 elements"},
		{"negative time", header + `[-1, "o", "a"]`, "line 2: time -1"},
		{"string time", header + `["1", "o", "a"]`, "line 2: time"},
		{"empty kind", header + `[1, "", "a"]`, "line 2: kind"},
		{"number data", header + `[1, "o", 5]`, "line 2: data 5"},
		{"garbage", header + `[1, "o", "a"] x`, "line 2: not an event"},
	} {
		_, _, err := Read(strings.NewReader(c.cast))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// A line past the bound fails without reading it all, and the error
// sticks.
func TestReadLineBound(t *testing.T) {
	long := `{"version": 2, "width": 80, "height": 24}` + "\n" + `[0, "o", "` + strings.Repeat("a", 200<<10) + `"]` + "\n" + `[1, "o", "b"]` + "\n"
	d, err := newDecoder(strings.NewReader(long), 100<<10)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := d.Next(); err == nil || !strings.Contains(err.Error(), "line 2: longer than 102400 bytes") {
			t.Fatalf("Next = %v, want the line bound", err)
		}
	}
	// Within the bound, a line longer than the read buffer is whole.
	d, err = newDecoder(strings.NewReader(long), 300<<10)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := d.Next(); err != nil || len(e.Data) != 200<<10 {
		t.Fatalf("Next = %d bytes, %v", len(e.Data), err)
	}
	if e, err := d.Next(); err != nil || e.Data != "b" {
		t.Fatalf("Next = %+v, %v", e, err)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("Next at the end = %v, want io.EOF", err)
	}
}

// A read error from the file is reported after the whole lines before it.
func TestReadFileError(t *testing.T) {
	broken := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(`{"version": 2, "width": 8, "height": 2}`+"\n"+`[0, "o", "a"]`+"\n"), &failing{broken})
	_, events, err := Read(r)
	if len(events) != 1 || !errors.Is(err, broken) {
		t.Errorf("Read = %+v, %v; want one event, then the read error", events, err)
	}
}

type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

// FuzzRead: any input reads without panicking, and the events it gives
// (those within a Duration) are written back by the Writer as they read.
func FuzzRead(f *testing.F) {
	header := `{"version": 2, "width": 80, "height": 24}` + "\n"
	for _, s := range []string{
		header + `[0.5, "o", "hi\r\n"]` + "\n" + `[1, "r", "10x5"]` + "\n",
		header + `[1, "m", ""]`, header + `[1e400, "o", ""]`, header + `[0, "o", "\ud800"]`,
		`{"version": 2, "width": 1, "height": 1, "env": {"SHELL": null}}`, "\n\n\n", header + "[",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := newDecoder(strings.NewReader(s), 1<<10)
		if err != nil {
			return
		}
		var events []Event
		for {
			e, err := d.Next()
			if err != nil {
				break
			}
			if e.Time < 0 || e.Kind == "" {
				t.Fatalf("event %+v passed the checks", e)
			}
			if e.Time < 1e9 { // a Duration holds 292 years
				events = append(events, e)
			}
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, d.Header, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			w.WriteEvent(time.Duration(e.Time*float64(time.Second)), e.Kind, e.Data)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		_, again, err := Read(&buf)
		if err != nil || len(again) != len(events) {
			t.Fatalf("written back: %d events, %v; want %d", len(again), err, len(events))
		}
		for i := range events {
			if again[i].Kind != events[i].Kind || again[i].Data != strings.ToValidUTF8(events[i].Data, "\ufffd") {
				t.Errorf("event %d: %+v written back as %+v", i, events[i], again[i])
			}
		}
	})
}

func TestGap(t *testing.T) {
	for _, c := range []struct {
		prev, next, limit, speed float64
		want                     time.Duration
	}{
		{1, 3, 0, 1, 2 * time.Second},
		{1, 3, 0, 2, time.Second},
		{1, 3, 0.5, 1, 500 * time.Millisecond},
		{1, 3, 0.5, 0.5, time.Second},
		{1, 3, 0, 0, 0},
		{3, 1, 0, 1, 0},
		{0, 1e300, 0, 1, maxGap},
	} {
		if got := Gap(c.prev, c.next, c.limit, c.speed); got != c.want {
			t.Errorf("Gap(%v, %v, limit %v, speed %v) = %v, want %v", c.prev, c.next, c.limit, c.speed, got, c.want)
		}
	}
}
