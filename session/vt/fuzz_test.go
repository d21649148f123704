package vt

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// recorder is an emitter that keeps the filter's output: the bytes meant
// for vt10x (text, controls, sequences) and, apart, the replies.
type recorder struct {
	f       *filter // whose pen an opPen reports
	out     []byte
	replies []byte
	badText bool
}

func (r *recorder) text(s string) {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			r.badText = true
		}
	}
	if !utf8.ValidString(s) {
		r.badText = true
	}
	r.out = append(r.out, s...)
}
func (r *recorder) control(b byte) { r.out = append(r.out, b) }
func (r *recorder) seq(o op, n int, raw []byte) {
	if o == opPen {
		r.out = appendSGR(append(r.out, "<pen>"...), r.f.st.pen)
	}
	r.out = append(r.out, raw...)
}
func (r *recorder) reply(b []byte) { r.replies = append(r.replies, b...) }

// passTokens are sequences the filter must hand to vt10x unchanged.
var passTokens = []string{
	"a", "hello ", "日本", "é", "😀", "\r", "\n", "\b", "\t",
	"\x1b[5A", "\x1b[B", "\x1b[3C", "\x1b[D", "\x1b[3;7H", "\x1b[H", "\x1b[2J", "\x1b[0K",
	"\x1b[2@", "\x1b[3P", "\x1b[2X", "\x1b[L", "\x1b[2M", "\x1b[4G", "\x1b[2d",
	"\x1b7", "\x1b8", "\x1bD", "\x1bM", "\x1bE", "\x1bH", "\x1b=", "\x1b>",
	"\x1b[?25l", "\x1b[?25h", "\x1b[?1h", "\x1b[?1l", "\x1b[?7l", "\x1b[?7h",
	"\x1b[s", "\x1b[u", "\x1b[6n", "\x1b[5n", "\x1b[20h", "\x1b[20l", "\x1b[3g", "\x1b[2;5r",
}

func runFilter(chunks ...string) *recorder {
	r := &recorder{}
	f := newFilter(r, 20, 6)
	r.f = f
	for _, c := range chunks {
		f.write(c)
	}
	return r
}

func FuzzPreparser(f *testing.F) {
	for _, s := range []string{
		"plain text\r\n", "\x1b[31mred\x1b[m", "\x1b[?1049h\x1b[?1049l\x1b[?1049l",
		"\x1b]0;title\x07", "\x1b]0;“x”\x1b\\", "\x1bP+q\x1b\\", "\x1b_Gé\x1b\\",
		"\x1b[38:2::1:2:3m", "\x1b[>4;2m", "\x1b[?u", "\x1b)0\x0eq\x0f", "a\x1b[99999999999b",
		"日本\x1b[1;2Hx", "e\u0301\u200d", "\x1b[?2026h", "\x1b[\r5C", "\x1bc",
	} {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		in := strings.ToValidUTF8(string(data), "\uFFFD")

		// Split anywhere on a rune boundary: the same output.
		whole := runFilter(in)
		k := int(cut) % (len(in) + 1)
		for k > 0 && k < len(in) && !utf8.RuneStart(in[k]) {
			k--
		}
		split := runFilter(in[:k], in[k:])
		if !bytes.Equal(whole.out, split.out) || !bytes.Equal(whole.replies, split.replies) {
			t.Fatalf("split at %d changes the output:\n%q\n%q", k, whole.out, split.out)
		}
		if whole.badText {
			t.Fatalf("control bytes or invalid UTF-8 passed as text: %q", whole.out)
		}

		// Never stalls: after CAN (which ends any sequence or string) text
		// comes out at once.
		r := &recorder{}
		flt := newFilter(r, 20, 6)
		r.f = flt
		flt.write(in)
		flt.write("\x18")
		n := len(r.out)
		flt.write("Z")
		if string(r.out[n:]) != "Z" {
			t.Fatalf("text held back after CAN: %q", r.out[n:])
		}

		// Passes through what it does not mean to change.
		var want strings.Builder
		for _, b := range data {
			want.WriteString(passTokens[int(b)%len(passTokens)])
		}
		if got := runFilter(want.String()); string(got.out) != want.String() {
			t.Fatalf("changed a pass-through stream:\n got %q\nwant %q", got.out, want.String())
		}

		// The whole Screen survives it and renders rows of exact width.
		s := New(7, 4, WithScrollback(10))
		defer s.Close()
		s.Write(in)
		s.Resize(5, 3)
		s.Write(in)
		var fr Frame
		s.SnapshotRange(&fr, 0, 100)
		for y := 0; y < fr.Rows; y++ {
			if w := displayWidth(string(RenderRow(nil, &fr, y))); w != fr.Cols {
				t.Fatalf("row %d is %d columns, want %d", y, w, fr.Cols)
			}
		}
	})
}
