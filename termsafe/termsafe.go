// Package termsafe makes text that sandmux did not write safe to show on a
// terminal: file names and link targets from a workspace or an archive,
// error text from a provider or a remote host, pane names, exit summaries,
// the strings of a config.
//
// A terminal acts on some characters instead of showing them: ESC starts
// sequences that set the window title (OSC 0), write the clipboard (OSC
// 52) or rewrite the screen; C1 controls (U+0080–U+009F, and the raw bytes
// 0x80–0x9F that some terminals read as C1) do the same without ESC; bidi
// overrides make text read in an order it was not written in. termsafe
// shows each of them as an escape (\x1b, \u202e) instead.
//
// It owns the rule of what is escaped and how. It does not own where text
// is printed: each print boundary (the CLI's printers, the TUI's chrome)
// calls it. Pane bodies need none of it: they are drawn from the terminal
// emulator's cells, not from the bytes the sandbox wrote.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// What is escaped, and as what:
//
//	backslash                         \\   (so that String is one-to-one)
//	tab, newline, carriage return     \t \n \r
//	other C0 controls, DEL            \xNN
//	a byte that is not UTF-8          \xNN (NN ≥ 80: never a C0 escape)
//	C1 controls U+0080–U+009F         \u0080 … \u009f
//	format characters (Unicode Cf:    \uNNNN, or \UNNNNNNNN above U+FFFF
//	  bidi embeddings, overrides and
//	  isolates, marks, zero-width
//	  spaces, BOM, invisible tags),
//	  line and paragraph separators
//
// The format characters are escaped because each can make text look like
// other text: a bidi override (U+202E) reverses what follows it, a
// zero-width space or an invisible tag hides characters in a name. Two are
// kept, zero-width non-joiner and joiner (U+200C, U+200D): scripts such as
// Persian and emoji sequences need them, and neither reorders or hides
// text. Everything else printable, in any script, is kept as it is.

// String returns s safe to print within one line: every character the
// table above lists, newline included, is shown escaped. String is
// one-to-one (two different strings never print the same), and it returns
// s itself, without allocating, when s needs no escaping.
func String(s string) string { return escape(s, 0) }

// Lines is String for multi-line text: newlines are kept, everything else
// is escaped as String escapes it.
func Lines(s string) string { return escape(s, keepNL) }

// Message returns an error message safe to print: as Lines, but leaving
// backslashes as they are. Error text quotes names Go's way (%q), whose
// escapes are already safe; escaping their backslashes again would double
// each one. A control character inside an unquoted part is still escaped.
func Message(s string) string { return escape(s, keepNL|keepBS) }

// Safe reports whether String(s) == s.
func Safe(s string) bool { return safeUpTo(s, 0) == len(s) }

// mode says what escape keeps raw that String escapes.
type mode uint8

const (
	keepNL  mode = 1 << iota // newlines
	keepTab                  // tabs
	keepBS                   // backslashes
)

// escape is the one implementation of every variant.
func escape(s string, m mode) string {
	i := safeUpTo(s, m)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			writeByte(&b, c, m)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeHex(&b, `\x`, uint32(c), 2)
		case needsEscape(r):
			if r > 0xffff {
				writeHex(&b, `\U`, uint32(r), 8)
			} else {
				writeHex(&b, `\u`, uint32(r), 4)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// safeUpTo returns the length of s's longest prefix that needs no
// escaping: the fast path, which neither allocates nor decodes ASCII.
func safeUpTo(s string, m mode) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '\\' || c == 0x7f {
				if asciiEscaped(c, m) {
					return i
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || needsEscape(r) {
			return i
		}
		i += n
	}
	return len(s)
}

func asciiEscaped(c byte, m mode) bool {
	switch c {
	case '\n':
		return m&keepNL == 0
	case '\t':
		return m&keepTab == 0
	case '\\':
		return m&keepBS == 0
	}
	return c < 0x20 || c == 0x7f
}

func writeByte(b *strings.Builder, c byte, m mode) {
	if !asciiEscaped(c, m) {
		b.WriteByte(c)
		return
	}
	switch c {
	case '\\':
		b.WriteString(`\\`)
	case '\t':
		b.WriteString(`\t`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	default:
		writeHex(b, `\x`, uint32(c), 2)
	}
}

// needsEscape reports whether a decoded non-ASCII rune is escaped.
func needsEscape(r rune) bool {
	switch {
	case r <= 0x9f: // C1 controls (U+0080 up)
		return true
	case r == 0x200c || r == 0x200d:
		return false
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[v>>uint(shift)&0xf])
	}
}
