package termsafe

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzString checks, for any bytes, that String's output is valid UTF-8
// holding no control, C1, format or separator character, that decoding it
// gives the input back (so two inputs never print the same), that safe
// input is returned unchanged, and that Lines and Message are as safe.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x1b]52;c;aGVsbG8=\x07b", `\x1b`, "\\", "\x9b\u009b\u202e\U000E0041", "\xff\xe2\x82", "a\nb\tc\r", "👩\u200d💻"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if why := unsafeIn(out, false); why != "" {
			t.Fatalf("String(%q) = %q holds %s", s, out, why)
		}
		back, err := decode(out)
		if err != nil || back != s {
			t.Fatalf("String(%q) = %q decodes to %q, %v", s, out, back, err)
		}
		if Safe(s) != (out == s) {
			t.Fatalf("Safe(%q) = %v but String gives %q", s, Safe(s), out)
		}
		for name, f := range map[string]func(string) string{"Lines": Lines, "Message": Message} {
			if o := f(s); unsafeIn(o, true) != "" {
				t.Fatalf("%s(%q) = %q holds %s", name, s, o, unsafeIn(o, true))
			}
		}
		var b strings.Builder
		_, _ = NewWriter(&b).Write([]byte(s))
		if o := strings.ReplaceAll(b.String(), "\t", " "); unsafeIn(o, true) != "" {
			t.Fatalf("NewWriter wrote %q for %q: %s", b.String(), s, unsafeIn(o, true))
		}
		if back, err := decode(Lines(s)); err != nil || back != s {
			t.Fatalf("Lines(%q) decodes to %q, %v", s, back, err)
		}
	})
}

// unsafeIn names what in s a terminal could act on, or returns "".
func unsafeIn(s string, newlineOK bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '\n' && newlineOK:
		case r < 0x20, r == 0x7f:
			return "a C0 control"
		case r >= 0x80 && r <= 0x9f:
			return "a C1 control"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return "a bidi control"
		case r == 0x2028, r == 0x2029:
			return "a line or paragraph separator"
		case unicode.Is(unicode.Cf, r) && r != 0x200c && r != 0x200d:
			return "a format character"
		}
	}
	return ""
}

// decode inverts String (and Lines): it is what makes the escaping
// one-to-one.
func decode(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", strconv.ErrSyntax
		}
		i++
		switch c := s[i]; c {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			if i+n >= len(s) {
				return "", strconv.ErrSyntax
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", err
			}
			if c == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += n
		default:
			return "", strconv.ErrSyntax
		}
	}
	return b.String(), nil
}
