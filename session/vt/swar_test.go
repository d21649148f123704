package vt

import (
	"math/rand/v2"
	"testing"
)

// The word-at-a-time tests agree with a byte at a time: every byte value
// in every position of a word, among neighbours of every kind (a borrow
// or carry from one byte must not decide for another).
func TestWordTestsMatchBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fillers := []byte{0x00, 0x1f, 0x20, 0x41, 0x7e, 0x7f, 0x80, 0xbf, 0xc0, 0xff}
	var w [8]byte
	for pos := range 8 {
		for v := range 256 {
			for range 20 {
				for k := range w {
					w[k] = fillers[rng.IntN(len(fillers))]
				}
				w[pos] = byte(v)
				checkWord(t, string(w[:]))
			}
		}
	}
	for range 200000 {
		for k := range w {
			w[k] = byte(rng.Uint32())
		}
		checkWord(t, string(w[:]))
	}
}

func checkWord(t *testing.T, s string) {
	t.Helper()
	printable, control := true, false
	for i := range len(s) {
		printable = printable && s[i] >= 0x20 && s[i] < 0x7f
		control = control || s[i] < 0x20
	}
	x := load64(s, 0)
	if got := printable8(x); got != printable {
		t.Fatalf("printable8(%q) = %v", s, got)
	}
	if got := hasControl8(x); got != control {
		t.Fatalf("hasControl8(%q) = %v", s, got)
	}
}

// textRunBytes is textRun a byte at a time.
func textRunBytes(t string) (end, chars int) {
	for end < len(t) && t[end] >= 0x20 {
		if t[end]&0xc0 != 0x80 {
			chars++
		}
		end++
	}
	return end, chars
}

func TestTextRunMatchesBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "word ", "  ", "é", "λ→✓", "日本", "😀", "\x1b[1m", "\r\n", "\n", "\x7f", "\xbf", "\xff"}
	for range 20000 {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		checkTextRun(t, string(b))
	}
}

func FuzzTextRun(f *testing.F) {
	f.Add("plain words then\x1b[m")
	f.Add("λ→✓ émoji 日本 \r\n")
	f.Fuzz(func(t *testing.T, s string) { checkTextRun(t, s) })
}

func checkTextRun(t *testing.T, s string) {
	t.Helper()
	end, chars := textRun(s)
	wantEnd, wantChars := textRunBytes(s)
	if end != wantEnd || chars != wantChars {
		t.Fatalf("textRun(%q) = %d, %d; a byte at a time %d, %d", s, end, chars, wantEnd, wantChars)
	}
	n := 0
	for n < end && s[end-1-n] == ' ' {
		n++
	}
	if got := trailingSpaces(s[:end]); got != n {
		t.Fatalf("trailingSpaces(%q) = %d, want %d", s[:end], got, n)
	}
}
