package vt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Both parsers take a fast path between sequences: the filter decodes
// plain CSI sequences itself (csifast.go) and vt10x hands printable runs
// and plain CSI sequences straight to its handlers
// (third_party/vt10x/fast.go). These tests hold the filter to what it
// emits through ansi.Parser alone, and the whole Screen, wrapper and all,
// to the screen and scrollback it builds when both parse every byte the
// slow way.

// opLog is an emitter that writes down every call the filter makes.
type opLog struct{ b []byte }

func (l *opLog) text(s string)  { l.b = append(append(l.b, "T:"...), s...) }
func (l *opLog) control(c byte) { l.b = append(l.b, 'C', c) }
func (l *opLog) reply(r []byte) { l.b = append(append(l.b, "R:"...), r...) }
func (l *opLog) seq(o op, n int, raw []byte) {
	l.b = fmt.Appendf(l.b, "S%d,%d:%q", o, n, raw)
}

// sameFilters feeds chunks to a filter on each path and compares every
// call and the state they leave.
func sameFilters(t *testing.T, chunks []string, what string) {
	t.Helper()
	var fl, sl opLog
	fast, slow := newFilter(&fl, 40, 12), newFilter(&sl, 40, 12)
	slow.noFastCSI = true
	for i, c := range chunks {
		fast.write(c)
		slow.write(c)
		if !bytes.Equal(fl.b, sl.b) {
			t.Fatalf("%s, chunk %d %q: the filter's calls differ\nfast: %q\nslow: %q", what, i, c, fl.b, sl.b)
		}
		if !reflect.DeepEqual(fast.st, slow.st) || fast.top != slow.top || fast.bot != slow.bot ||
			!reflect.DeepEqual(fast.marks, slow.marks) || fast.groundState() != slow.groundState() {
			t.Fatalf("%s, chunk %d %q: the filter's state differs\nfast: %+v\nslow: %+v", what, i, c, fast.st, slow.st)
		}
	}
}

// slowVT makes s's filter and vt10x parse every byte through their state
// machines.
func slowVT(t *testing.T, s *Screen) {
	t.Helper()
	s.f.noFastCSI = true
	v, ok := s.term.(interface{ SlowPath(bool) })
	if !ok {
		t.Fatal("vt10x has no SlowPath: third_party/vt10x is not the copy in use")
	}
	v.SlowPath(true)
}

// sameScreens fails when a and b differ in any line on screen (and in
// the scrollback too when all is set), in the cursor or in the modes.
func sameScreens(t *testing.T, a, b *Screen, all bool, what string) {
	t.Helper()
	var fa, fb Frame
	ca, ra := a.Size()
	if n := b.ScrollbackLen(); n != a.ScrollbackLen() {
		t.Fatalf("%s: scrollback %d lines on the fast path, %d on the slow one", what, a.ScrollbackLen(), n)
	}
	from, total := a.ScrollbackLen(), a.ScrollbackLen()+ra
	if all {
		from = 0
	}
	a.SnapshotRange(&fa, from, total)
	b.SnapshotRange(&fb, from, total)
	for y := 0; y < total-from; y++ {
		if !slices.Equal(fa.Row(y), fb.Row(y)) {
			t.Fatalf("%s (%dx%d): line %d differs:\nfast: %q\nslow: %q\nfast cells %v\nslow cells %v", what, ca, ra, y,
				RenderRowText(nil, &fa, y), RenderRowText(nil, &fb, y), fa.Row(y), fb.Row(y))
		}
	}
	if fa.Cursor != fb.Cursor {
		t.Fatalf("%s: cursor %+v on the fast path, %+v on the slow one", what, fa.Cursor, fb.Cursor)
	}
	if a.Modes() != b.Modes() || a.Title() != b.Title() {
		t.Fatalf("%s: modes or title differ: %+v %q, %+v %q", what, a.Modes(), a.Title(), b.Modes(), b.Title())
	}
}

// feedPaths writes chunks to a Screen on each path, comparing after each.
func feedPaths(t *testing.T, cols, rows int, chunks []string, what string) {
	t.Helper()
	fast, slow := New(cols, rows, WithScrollback(500)), New(cols, rows, WithScrollback(500))
	defer fast.Close()
	defer slow.Close()
	slowVT(t, slow)
	for i, c := range chunks {
		fast.Write(c)
		slow.Write(c)
		sameScreens(t, fast, slow, i%16 == 15 || i == len(chunks)-1, fmt.Sprintf("%s, chunk %d", what, i))
	}
}

// chunked cuts b at random rune boundaries, as reads from a PTY come.
func chunked(rng *rand.Rand, b string) []string {
	var out []string
	for len(b) > 0 {
		n := min(len(b), 1+rng.IntN(700))
		for n < len(b) && b[n]&0xc0 == 0x80 {
			n++
		}
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// tuiFrames is what a full-screen program redraws: rows positioned,
// styled and erased, a scroll region scrolled, the alternate screen.
func tuiFrames(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[H\x1b[2J")
	for i := range n {
		for y := 1; y <= 30; y++ {
			fmt.Fprintf(&b, "\x1b[%d;%dH", y, 1+rng.IntN(3))
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "\x1b[1;38;5;%dm%3d%%\x1b[m ", rng.IntN(256), rng.IntN(100))
			case 1:
				fmt.Fprintf(&b, "\x1b[48;2;%d;%d;%dm\x1b[K", rng.IntN(256), rng.IntN(256), rng.IntN(256))
			case 2:
				fmt.Fprintf(&b, "\x1b[%dX\x1b[%dC\x1b[7m日本語\x1b[27m", rng.IntN(9), rng.IntN(9))
			case 3:
				fmt.Fprintf(&b, "\x1b[%d;%dr\x1b[%dS\x1b[r\x1b[%dd", 1+rng.IntN(10), 10+rng.IntN(20), rng.IntN(3), 1+rng.IntN(30))
			case 4:
				b.WriteString("\x1b(0lqqk\x1b(B \x1b[;5H\x1b[5;H\x1b[0;0H")
			}
			fmt.Fprintf(&b, "\x1b[3%dmprocess %d \x1b[39m\x1b[K", rng.IntN(8), i*y)
		}
		if i%7 == 6 {
			b.WriteString("\x1b[?1049l\r\nshell line\r\n\x1b[?1049h")
		}
	}
	return b.String()
}

// csiStream is CSI sequences of every shape around the plain ones.
func csiStream(rng *rand.Rand, n int) string {
	var b strings.Builder
	finals := "@ABCDEFGHJKLMPSTXZ`bcdfghlmnqrstu"
	for b.Len() < n {
		b.WriteString("\x1b[")
		switch rng.IntN(12) {
		case 0:
			b.WriteString([]string{"?", ">", "=", "<", " ", "!", ":", "\r", "\x7f", "\x18", "é"}[rng.IntN(11)])
		case 1:
			b.WriteString(strings.Repeat(";", rng.IntN(40)))
		case 2:
			b.WriteString("1234567890123"[:1+rng.IntN(13)])
		}
		for k := rng.IntN(6); k > 0; k-- {
			if rng.IntN(4) > 0 {
				fmt.Fprint(&b, rng.IntN(300))
			}
			if k > 1 || rng.IntN(3) == 0 {
				b.WriteByte(';')
			}
		}
		b.WriteByte(finals[rng.IntN(len(finals))])
		if rng.IntN(3) == 0 {
			b.WriteString("ab日")
		}
	}
	return b.String()
}

func TestScreenFastPathMatchesSlow(t *testing.T) {
	streams := map[string]string{"styles": string(manyStyles()), "clusters": string(manyClusters())}
	paths, _ := filepath.Glob("testdata/replay/*.vt")
	if len(paths) == 0 {
		t.Fatal("no replay corpus in testdata/replay")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		streams[filepath.Base(p)] = string(b)
	}
	rng := rand.New(rand.NewPCG(3, 19))
	streams["tui"] = tuiFrames(rng, 12)
	streams["log"] = simpleText(rng, 300, 70)
	streams["csi"] = csiStream(rng, 12000)
	for name, data := range streams {
		sameFilters(t, chunked(rng, data), name)
		for _, size := range [][2]int{{80, 24}, {33, 9}} {
			feedPaths(t, size[0], size[1], chunked(rng, data), fmt.Sprintf("%s %dx%d", name, size[0], size[1]))
		}
	}
}

func FuzzScreenFastPath(f *testing.F) {
	f.Add([]byte("\x1b[1;2H\x1b[38;5;3mhi\x1b[K\r\n\x1b[;5H\x1b[5;H"), uint8(20), uint8(5), uint16(7))
	f.Add([]byte(tuiFrames(rand.New(rand.NewPCG(1, 1)), 2)), uint8(80), uint8(24), uint16(300))
	for _, s := range passTokens {
		f.Add([]byte(s+"x\x1b[3;4Hy"), uint8(10), uint8(4), uint16(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cols, rows uint8, cut uint16) {
		in := strings.ToValidUTF8(string(data), "\uFFFD")
		step := 1 + int(cut)%512
		var chunks []string
		for len(in) > 0 {
			n := min(step, len(in))
			for n < len(in) && in[n]&0xc0 == 0x80 {
				n++
			}
			chunks = append(chunks, in[:n])
			in = in[n:]
		}
		sameFilters(t, chunks, "fuzz")
		feedPaths(t, 1+int(cols)%120, 1+int(rows)%40, chunks, "fuzz")
	})
}
