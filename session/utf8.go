package session

import (
	"encoding/binary"
	"unicode/utf8"
)

// This file is the collector's decoder. It exists because neither standard
// behaviour matches contract O2: utf8.DecodeRune and `for range` yield one
// U+FFFD per invalid byte, and bytes.ToValidUTF8 one per run. Unicode's
// recommended practice, which browsers (WHATWG) and Python follow, is one
// U+FFFD per *maximal subpart*: the longest prefix of a well-formed
// sequence, or one byte if that byte cannot start one.

// seqRule says what may follow a lead byte: the length of the whole sequence
// and the range of the second byte. Third and fourth bytes, when present, are
// always 80–BF; only the second byte's range varies, which is how UTF-8
// excludes overlongs (E0, F0), surrogates (ED) and values above U+10FFFF (F4).
type seqRule struct {
	size   uint8 // 0: cannot start a multi-byte sequence (ASCII or invalid)
	lo, hi uint8 // inclusive range of the second byte
}

// leadRules is indexed by the first byte. The ranges are Unicode's table
// "Well-Formed UTF-8 Byte Sequences" (CONTRACTS.md O3 lists the same).
var leadRules = func() (t [256]seqRule) {
	set := func(from, to byte, r seqRule) {
		for b := int(from); b <= int(to); b++ {
			t[b] = r
		}
	}
	set(0xC2, 0xDF, seqRule{2, 0x80, 0xBF})
	set(0xE0, 0xE0, seqRule{3, 0xA0, 0xBF})
	set(0xE1, 0xEC, seqRule{3, 0x80, 0xBF})
	set(0xED, 0xED, seqRule{3, 0x80, 0x9F})
	set(0xEE, 0xEF, seqRule{3, 0x80, 0xBF})
	set(0xF0, 0xF0, seqRule{4, 0x90, 0xBF})
	set(0xF1, 0xF3, seqRule{4, 0x80, 0xBF})
	set(0xF4, 0xF4, seqRule{4, 0x80, 0x8F})
	return t
}()

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// asciiMask has the high bit of every byte of a word set: a word ANDed with
// it is zero exactly when all eight bytes are ASCII.
const asciiMask = 0x8080808080808080

// subpart measures the sequence starting at p[0], which must be a non-ASCII
// byte. ok reports a complete well-formed sequence of n bytes; otherwise n is
// the length of the maximal subpart to replace with one U+FFFD. A valid
// prefix cut short by the end of p counts as one maximal subpart, which is
// right only when nothing can follow p; callers that may see more bytes
// first hold such a suffix back with completableSuffix.
func subpart(p []byte) (n int, ok bool) {
	r := leadRules[p[0]]
	if r.size == 0 {
		return 1, false
	}
	if len(p) < 2 || p[1] < r.lo || p[1] > r.hi {
		return 1, false
	}
	for n = 2; n < int(r.size); n++ {
		if n >= len(p) || p[n]&0xC0 != 0x80 {
			return n, false
		}
	}
	return n, true
}

// completableSuffix returns how many bytes at the end of p (0 to 3) form a
// valid but incomplete sequence: the only bytes a window may carry (O3).
// Anything else at the end of p — a bad lead, a stray continuation, a second
// byte out of range — can never become valid, so it is not held back and the
// text before it is shown while the process sits idle.
func completableSuffix(p []byte) int {
	for k := 1; k <= 3 && k <= len(p); k++ {
		b := p[len(p)-k]
		if b&0xC0 == 0x80 {
			continue // a continuation: the sequence starts further back
		}
		// b is the last byte that can start a sequence. It is held back
		// only if it needs more than the k bytes present and those k are
		// a valid prefix.
		if int(leadRules[b].size) <= k {
			return 0
		}
		if n, _ := subpart(p[len(p)-k:]); n == k {
			return k
		}
		return 0
	}
	// Three continuations in a row: any lead is at least four bytes back,
	// so the sequence is either complete or already invalid.
	return 0
}

// appendReplacing appends p to dst with every maximal invalid subpart
// replaced by one U+FFFD, treating the end of p as the end of the input. Runs
// of valid bytes are copied in one append, so the cost of invalid input is
// per error, not per byte.
func appendReplacing(dst, p []byte) []byte {
	start := 0 // first byte of the valid run not yet copied to dst
	i := 0
	for i < len(p) {
		// Terminal output is mostly ASCII: skip it a word at a time.
		for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&asciiMask == 0 {
			i += 8
		}
		if i >= len(p) {
			break
		}
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		n, ok := subpart(p[i:])
		if !ok {
			dst = append(dst, p[start:i]...)
			dst = append(dst, replacement...)
			start = i + n
		}
		i += n
	}
	return append(dst, p[start:]...)
}

// decodeWindow decodes one window. Unless final, a completable suffix is left
// undecoded and reported through settled (src[settled:] is the carry);
// when final, nothing can complete it and it becomes one U+FFFD (O4).
// scratch is reused as the output buffer when replacement is needed and is
// returned for the next window.
func decodeWindow(src []byte, final bool, scratch []byte) (text string, settled int, scratchOut []byte) {
	settled = len(src)
	if !final {
		settled -= completableSuffix(src)
	}
	body := src[:settled]
	// Fast path: a valid window is copied once, straight into the string.
	if utf8.Valid(body) {
		return string(body), settled, scratch
	}
	scratch = appendReplacing(scratch[:0], body)
	return string(scratch), settled, scratch
}
