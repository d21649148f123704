package termsafe

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain name.txt", "plain name.txt"},
		{"ünïcødé 名前 🙂 عربى", "ünïcødé 名前 🙂 عربى"},
		{"a\x1b]52;c;aGVsbG8=\x07b", `a\x1b]52;c;aGVsbG8=\x07b`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"tab\tnl\ncr\r", `tab\tnl\ncr\r`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{`back\slash`, `back\\slash`},
		{`\x1b`, `\\x1b`}, // the text, not the character: told apart
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"raw c1 \x9b31m", `raw c1 \x9b31m`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200fmark", `bidi \u202eevil\u202c \u2066x\u2069 \u200fmark`},
		{"zero\u200bwidth \ufeffbom tag\U000E0041", `zero\u200bwidth \ufeffbom tag\U000e0041`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"joiners: می\u200cخواهم 👩\u200d💻", "joiners: می\u200cخواهم 👩\u200d💻"},
		{"replacement \ufffd is text", "replacement \ufffd is text"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Safe(tc.in); got != (tc.in == tc.want) {
			t.Errorf("Safe(%q) = %v", tc.in, got)
		}
	}
}

func TestLinesAndMessage(t *testing.T) {
	in := "first \x1b[2J\nsecond \"a\\x1b\" \\ \t\u202e"
	if got, want := Lines(in), "first \\x1b[2J\nsecond \"a\\\\x1b\" \\\\ \\t\\u202e"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	if got, want := Message(in), "first \\x1b[2J\nsecond \"a\\x1b\" \\ \\t\\u202e"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
}

// TestSafeTextIsNotCopied checks the fast path: text that needs nothing
// comes back as it is, without an allocation.
func TestSafeTextIsNotCopied(t *testing.T) {
	s := strings.Repeat("src/main.go ünï 名前 🙂 ", 20)
	for name, f := range map[string]func(string) string{"String": String, "Lines": Lines, "Message": Message} {
		if n := testing.AllocsPerRun(100, func() { _ = f(s) }); n != 0 {
			t.Errorf("%s allocates %v times for safe text", name, n)
		}
		if got := f(s); got != s {
			t.Errorf("%s changed safe text", name)
		}
	}
}

func TestFprintf(t *testing.T) {
	var b strings.Builder
	err := fmt.Errorf("read %s: %w", "dir\x1b]0;x\x07", errors.New("line one\nline two"))
	_, _ = Fprintf(&b, "\x1b[1m%s\x1b[m %q %-6s|%d %v %.3s\n", "n\x1b]52;\x07", "q\x1b", "\u202e", 42, err, "ab\x1bcd")
	want := "\x1b[1m" + `n\x1b]52;\x07` + "\x1b[m " + `"q\x1b"` + ` \u202e     |42 read dir\x1b]0;x\x07: line one` + "\n" + `line two ab\x1b` + "\n"
	if b.String() != want {
		t.Errorf("Fprintf wrote\n%q, want\n%q", b.String(), want)
	}
	b.Reset()
	_, _ = Fprintln(&b, "left out", "f\x1b\nx", err, 3, fmt.Stringer(stringer("s\x07")))
	want = `left out f\x1b\nx read dir\x1b]0;x\x07: line one` + "\nline two 3 " + `s\x07` + "\n"
	if b.String() != want {
		t.Errorf("Fprintln wrote\n%q, want\n%q", b.String(), want)
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	if n, err := fmt.Fprintf(w, "flag provided but not defined: -%s\n\t-o FILE\n", "x\x1b]0;t\x07\\"); err != nil || n != 50 {
		t.Errorf("Write: %d, %v", n, err)
	}
	if want := "flag provided but not defined: -x\\x1b]0;t\\x07\\\n\t-o FILE\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

func BenchmarkStringSafe(b *testing.B) {
	s := "workspace/src/internal/some/deeply/nested/file_name_test.go"
	b.ReportAllocs()
	for b.Loop() {
		_ = String(s)
	}
}

func BenchmarkStringHostile(b *testing.B) {
	s := "workspace/\x1b]52;c;aGVsbG8=\x07/file\u202e.go"
	b.ReportAllocs()
	for b.Loop() {
		_ = String(s)
	}
}
