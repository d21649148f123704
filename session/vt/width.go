package vt

import (
	"sort"
	"sync"
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

// runeWidth returns how many columns r takes: 0, 1 or 2, following
// wcwidth(3) per code point, as xterm does: no grapheme clustering and
// East Asian ambiguous characters are narrow. Marks, format characters
// (ZWJ, variation selectors) and controls take none; glibc's wcwidth,
// which tmux uses, agrees except for a few hundred rare code points. The
// widths come from widthtab.go, made from the Unicode tables and
// go-runewidth by TestWidthTableIsTheTables: go-runewidth itself fills a
// 2 MiB table at its first lookup past U+02FF, which a server kept for
// good once any pane printed a box-drawing character.
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
// CJK text took 70 % of their parse in searches of the ranges (16 KiB,
// made once per server).
const bmp = 0x10000

var (
	bmpOnce   sync.Once
	bmpWidths [bmp / 4]uint8
)

func fillBMP() {
	for i := range bmpWidths {
		bmpWidths[i] = 0b01010101 // width 1 (ASCII is asciiWidth's)
	}
	for _, wr := range widthRanges {
		if wr.lo >= bmp {
			break
		}
		for r := wr.lo; r <= min(wr.hi, bmp-1); r++ {
			bmpWidths[r>>2] = bmpWidths[r>>2]&^(3<<(r&3*2)) | wr.w<<(r&3*2)
		}
	}
}

// widthRange is a run of code points of one width.
type widthRange struct {
	lo, hi rune
	w      uint8
}

// widthOf is the width of r past ASCII, from the ranges.
func widthOf(r rune) int {
	i := sort.Search(len(widthRanges), func(i int) bool { return widthRanges[i].hi >= r })
	if i < len(widthRanges) && widthRanges[i].lo <= r {
		return int(widthRanges[i].w)
	}
	return 1
}
