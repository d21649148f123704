package vt

import (
	"math/bits"
	"strings"
)

// Word-at-a-time scans of the bytes a flood's lines are made of, eight
// at once. Bulk layout reads every byte of a log twice (bulkPrefix to
// find and measure its lines, directText to gather them), and most of
// those bytes are printable ASCII: a word of them is one test, not
// eight. Each test says exactly whether some byte of the word matches,
// not which; the byte loop after it finds which.

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// load64 reads s[i:i+8] as a little-endian word (the compiler makes it
// one load).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// printable8 reports whether every byte of x is printable ASCII,
// 0x20-0x7e: none below 0x20 (a borrow out of some byte) and none above
// 0x7e (a carry into, or already in, some byte's high bit).
func printable8(x uint64) bool {
	return !hasControl8(x) && ((x+lowBits)|x)&highBits == 0
}

// hasControl8 reports whether some byte of x is below 0x20.
func hasControl8(x uint64) bool { return (x-0x20*lowBits)&^x&highBits != 0 }

// textRun measures the characters at the start of t, up to its first
// byte below 0x20 (in a bulk's text, ESC, CR or LF): their length in
// bytes and how many characters they are (bytes that start one, not
// UTF-8's continuation bytes, 10xxxxxx).
func textRun(t string) (end, chars int) {
	i, cont := 0, 0
	for ; i+8 <= len(t); i += 8 {
		x := load64(t, i)
		if hasControl8(x) {
			break
		}
		// A continuation byte has its high bit set and the bit below
		// clear: shifted left one, the bit below lands on the high bit.
		cont += bits.OnesCount64(x &^ (x << 1) & highBits)
	}
	for ; i < len(t) && t[i] >= 0x20; i++ {
		if t[i]&0xc0 == 0x80 {
			cont++
		}
	}
	return i, i - cont
}

// trailingSpaces counts the spaces at the end of t.
func trailingSpaces(t string) int { return len(t) - len(strings.TrimRight(t, " ")) }
