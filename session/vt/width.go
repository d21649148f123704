package vt

import (
	"sync"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// placeholder is the rune fed to vt10x after a wide rune so that the cursor
// advances two columns. It is a Unicode noncharacter (U+FDD0), which no
// font draws and no program prints on purpose; unlike a private-use code
// point it cannot collide with Nerd Font icons. The filter turns a
// placeholder that arrives from the child into U+FFFD.
const placeholder = '\uFDD0'

// padRune is fed to vt10x for the blank that fills the last column when a
// wide rune wraps to the next line (as in xterm), so that reflow can tell
// it from a space the child wrote there: it is no part of the text. It
// reads as a blank cell with FlagPad; one the child sends becomes U+FFFD.
const padRune = '\uFDD1'

// widths follows wcwidth(3) per code point, as xterm does: no grapheme
// clustering and East Asian ambiguous characters are narrow.
var widths = &runewidth.Condition{EastAsianWidth: false}

// runeWidth returns how many columns r takes: 0, 1 or 2. Marks, format
// characters (ZWJ, variation selectors) and controls take none; glibc's
// wcwidth, which tmux uses, agrees except for a few hundred rare code points.
func runeWidth(r rune) int {
	if r < 0x80 {
		return asciiWidth(r)
	}
	if r < bmp {
		bmpOnce.Do(fillBMP)
		return int(bmpWidths[r>>2] >> (r & 3 * 2) & 3)
	}
	return widthOf(r)
}

func asciiWidth(r rune) int {
	if r < 0x20 || r == 0x7f {
		return 0
	}
	return 1
}

// The widths of the Basic Multilingual Plane, two bits a code point, made
// the first time a pane meets a rune past ASCII: box drawing, symbols and
// CJK text took 70 % of their parse in the lookups below (16 KiB, made
// in about 6 ms, once per server).
const bmp = 0x10000

var (
	bmpOnce   sync.Once
	bmpWidths [bmp / 4]uint8
)

func fillBMP() {
	for r := rune(0); r < bmp; r++ {
		bmpWidths[r>>2] |= uint8(widthOf(r)) << (r & 3 * 2)
	}
}

// widthOf is runeWidth computed from the Unicode tables.
func widthOf(r rune) int {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return 0
	case r < 0x7f:
		return 1
	case r == 0xad: // soft hyphen: visible in xterm and glibc
		return 1
	case r >= 0x1160 && r <= 0x11ff, r >= 0xd7b0 && r <= 0xd7ff:
		// Hangul medial vowels and final consonants conjoin with the
		// syllable before them (they compose under NFC).
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	return widths.RuneWidth(r)
}
