package asciicast

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	start := time.Unix(1700000000, 0)
	w, err := NewWriter(&buf, Header{Width: 80, Height: 24, Timestamp: start.Unix(), Env: map[string]string{"TERM": "xterm-256color"}}, start)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"hello\r\n", "\x1b[31mred\x1b[0m", "quote \" back \\ tab \t nul \x00 del \x7f", "日本語 🎉 é", "<html>&amp;", "\u2028\u2029"}
	for i, s := range texts {
		w.WriteEvent(time.Duration(i)*time.Millisecond*1500, "o", s)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// Every line is valid JSON on its own, as players read it.
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not valid JSON: %q", i+1, line)
		}
	}
	h, events, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 2 || h.Width != 80 || h.Height != 24 || h.Env["TERM"] != "xterm-256color" {
		t.Errorf("header = %+v", h)
	}
	if len(events) != len(texts) {
		t.Fatalf("%d events, want %d", len(events), len(texts))
	}
	for i, e := range events {
		if e.Data != texts[i] || e.Kind != "o" || e.Time != float64(i)*1.5 {
			t.Errorf("event %d = %+v, want %q at %v", i, e, texts[i], float64(i)*1.5)
		}
	}
}

func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "a", "\x00\x1f\"\\", "é", "\xff\xfe", "\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("invalid JSON %q for %q: %v", b, s, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); got != want && bytes.Equal([]byte(s), []byte(want)) {
			t.Errorf("round trip %q -> %q", s, got)
		}
	})
}
