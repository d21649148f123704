package vt

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// feedBoth writes the same chunks into a screen using bulk layout and one
// that never does, and fails unless every line of scrollback and screen,
// every cell's style, and the cursor end up identical.
func feedBoth(t *testing.T, cols, rows int, chunks []string) int {
	t.Helper()
	fast, slow := New(cols, rows, WithScrollback(100000)), New(cols, rows, WithScrollback(100000))
	defer fast.Close()
	defer slow.Close()
	slow.noBulk = true
	for _, c := range chunks {
		fast.Write(c)
		slow.Write(c)
	}
	// A write after the bulk that moves the cursor and draws, so state that
	// only shows later (pen, cursor, wrap) is compared too.
	tail := "\x1b[2;3Hx\x1b[Ky\x1b[5;1H\x1b[2K" + "tail"
	fast.Write(tail)
	slow.Write(tail)
	var ff, sf Frame
	total := fast.ScrollbackLen() + rows
	if st := slow.ScrollbackLen() + rows; st != total {
		t.Fatalf("%dx%d: scrollback %d lines with bulk, %d without", cols, rows, fast.ScrollbackLen(), slow.ScrollbackLen())
	}
	fast.SnapshotRange(&ff, 0, total)
	slow.SnapshotRange(&sf, 0, total)
	for y := 0; y < total; y++ {
		if !reflect.DeepEqual(ff.Row(y), sf.Row(y)) {
			t.Fatalf("%dx%d: line %d differs:\nbulk: %q\nslow: %q\nbulk cells %v\nslow cells %v", cols, rows, y,
				RenderRowText(nil, &ff, y), RenderRowText(nil, &sf, y), ff.Row(y), sf.Row(y))
		}
	}
	if ff.Cursor != sf.Cursor {
		t.Fatalf("cursor %+v with bulk, %+v without", ff.Cursor, sf.Cursor)
	}
	bulky := false
	for _, c := range chunks {
		bulky = bulky || strings.Count(c, "\n") >= rows+bulkMinLines+rows
	}
	if bulky && fast.bulks == 0 {
		t.Fatalf("%dx%d: a chunk long enough never took the bulk path", cols, rows)
	}
	return fast.bulks
}

// simpleText makes n lines of printable ASCII, wide and narrow non-ASCII,
// SGR (bold, reverse, 256 colour, truecolour, resets, and forms the
// filter rewrites), CR overwrites and lines longer than the screen.
func simpleText(rng *rand.Rand, n, cols int) string {
	words := []string{"build", "ok", "λ", "→", "✓", "émoji", "日本語", "🎉", "中文", "x"}
	sgrs := []string{"\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[1;32m", "\x1b[7m", "\x1b[38;5;200m", "\x1b[48;5;19m",
		"\x1b[38;2;10;200;30m", "\x1b[4;44m", "\x1b[m", "\x1b[21m", "\x1b[2;9m", "\x1b[;1m", "\x1b[27;39;49m"}
	var b strings.Builder
	for range n {
		length := rng.IntN(3 * cols)
		for w := 0; w < length; {
			switch rng.IntN(10) {
			case 0:
				b.WriteString(sgrs[rng.IntN(len(sgrs))])
			case 1:
				if rng.IntN(4) == 0 {
					b.WriteString("\r")
				}
			default:
				word := words[rng.IntN(len(words))]
				b.WriteString(word + " ")
				w += utf8.RuneCountInString(word) + 1
			}
		}
		if rng.IntN(5) > 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestBulkMatchesSlowPath(t *testing.T) {
	bulks := 0
	defer func() {
		if bulks < 20 {
			t.Errorf("only %d bulk layouts over all cases: the test proves little", bulks)
		}
	}()
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cols, rows := 2+rng.IntN(90), 1+rng.IntN(30)
		t.Run(fmt.Sprintf("seed%d_%dx%d", seed, cols, rows), func(t *testing.T) {
			text := simpleText(rng, rows+bulkMinLines+rng.IntN(300), cols)
			// Start mid-screen, mid-line, with a pen set and a wrap
			// pending sometimes, then split the text at random points.
			prefix := fmt.Sprintf("\x1b[%dm%s", 31+rng.IntN(7), strings.Repeat("p", rng.IntN(2*cols)))
			var chunks []string
			chunks = append(chunks, prefix)
			pieces := 1 + rng.IntN(3)
			if seed%8 == 7 {
				pieces = 40 // small reads, as a slow child gives
			}
			for len(text) > 0 {
				n := len(text)
				if pieces > 1 {
					n = 1 + rng.IntN(len(text))
					pieces--
				}
				for n < len(text) && !utf8.RuneStart(text[n]) {
					n++
				}
				chunks = append(chunks, text[:n])
				text = text[n:]
			}
			bulks += feedBoth(t, cols, rows, chunks)
		})
	}
}

// FuzzBulk: any text, split anywhere, gives the same screen and scrollback
// with and without bulk layout.
func FuzzBulk(f *testing.F) {
	f.Add("hello\r\nworld\r\n", uint8(20), uint8(3), uint8(5))
	f.Add("\x1b[1;31mred\x1b[0m 日本\r\n", uint8(7), uint8(2), uint8(9))
	f.Add("\x1b[32m0001\x1b[0m λ → ok \x1b[44m  \x1b[0m\r", uint8(30), uint8(4), uint8(3)) // direct lines
	f.Add("\x1b[7m  \x1b[m  \r", uint8(2), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, unit string, cols, rows, repeat uint8) {
		unit = strings.ToValidUTF8(unit, "?")
		c, r := 2+int(cols)%100, 1+int(rows)%40
		n := r + bulkMinLines + int(repeat)
		text := strings.Repeat(unit+"\n", n)
		if len(text) > 1<<20 {
			t.Skip("too large")
		}
		fast, slow := New(c, r, WithScrollback(1<<16)), New(c, r, WithScrollback(1<<16))
		defer fast.Close()
		defer slow.Close()
		slow.noBulk = true
		half := len(text) / 2
		for half < len(text) && !utf8.RuneStart(text[half]) {
			half++
		}
		for _, part := range []string{text[:half], text[half:]} {
			fast.Write(part)
			slow.Write(part)
		}
		var ff, sf Frame
		total := fast.ScrollbackLen() + r
		if slow.ScrollbackLen()+r != total {
			t.Fatalf("scrollback %d vs %d lines", fast.ScrollbackLen(), slow.ScrollbackLen())
		}
		fast.SnapshotRange(&ff, 0, total)
		slow.SnapshotRange(&sf, 0, total)
		if !reflect.DeepEqual(ff.Cells, sf.Cells) || ff.Cursor != sf.Cursor {
			for y := 0; y < total; y++ {
				if !reflect.DeepEqual(ff.Row(y), sf.Row(y)) {
					t.Fatalf("line %d: bulk %q, slow %q", y, RenderRowText(nil, &ff, y), RenderRowText(nil, &sf, y))
				}
			}
			t.Fatalf("cursor %+v vs %+v", ff.Cursor, sf.Cursor)
		}
	})
}

// appendVTPen gives vt10x a pen that reads back as the same id, whatever
// pen it held before.
func TestVTPenRoundTrips(t *testing.T) {
	s := New(10, 2)
	defer s.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		id := uint32(rng.IntN(1 << 24))
		if rng.IntN(10) == 0 {
			id = uint32(rng.IntN(300))
		}
		s.pending = appendVTPen(s.pending[:0], id)
		s.flush()
		if got := glyphPen(s.term.Cursor().Attr); got != id {
			t.Fatalf("appendVTPen %q reads back as %d, want %d", appendVTPen(nil, id), got, id)
		}
	}
}
