package vt

import "testing"

// The table of the Basic Multilingual Plane gives every code point the
// width the Unicode tables give it.
func TestRuneWidthTableIsTheTables(t *testing.T) {
	for r := rune(0); r < 0x11000; r++ {
		if got, want := runeWidth(r), widthOf(r); got != want {
			t.Fatalf("runeWidth(%U) = %d, the tables say %d", r, got, want)
		}
	}
}
