package vt10x

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// pair is one stream written to a terminal taking the fast path and to
// one parsing every byte the slow way.
type pair struct{ fast, slow *terminal }

func newPair(cols, rows int) pair {
	var fw, sw bytes.Buffer
	p := pair{
		fast: New(WithSize(cols, rows), WithWriter(&fw)).(*terminal),
		slow: New(WithSize(cols, rows), WithWriter(&sw)).(*terminal),
	}
	p.slow.slow = true
	return p
}

// write gives both the same bytes and checks they consumed alike.
func (p pair) write(t *testing.T, b []byte) {
	t.Helper()
	nf, _ := p.fast.Write(b)
	ns, _ := p.slow.Write(b)
	if nf != ns {
		t.Fatalf("Write(%q) took %d bytes on the fast path, %d on the slow one", b, nf, ns)
	}
}

// check fails when anything either terminal holds differs.
func (p pair) check(t *testing.T, what string) {
	t.Helper()
	f, s := p.fast.State, p.slow.State
	same := func(name string, a, b interface{}) {
		t.Helper()
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: %s differs\nfast: %v\nslow: %v", what, name, a, b)
		}
	}
	same("lines", f.lines, s.lines)
	same("altLines", f.altLines, s.altLines)
	same("dirty", f.dirty, s.dirty)
	same("cursor", f.cur, s.cur)
	same("saved cursor", f.curSaved, s.curSaved)
	same("region", [2]int{f.top, f.bottom}, [2]int{s.top, s.bottom})
	same("mode", f.mode, s.mode)
	same("tabs", f.tabs, s.tabs)
	same("title", f.title, s.title)
	same("changed", f.changed, s.changed)
	same("ground", f.ground, s.ground)
	same("csi", [3]interface{}{f.csi.args, f.csi.mode, f.csi.priv}, [3]interface{}{s.csi.args, s.csi.mode, s.csi.priv})
	same("str", f.str, s.str)
	same("replies", f.w.(*bytes.Buffer).String(), s.w.(*bytes.Buffer).String())
}

// randomStream is what full-screen programs and hostile ones write, in
// pieces chosen to land on every branch of plainCSI and around it.
func randomStream(r *rand.Rand, n int) []byte {
	var b []byte
	params := func() {
		for k := r.Intn(5); k > 0; k-- {
			switch r.Intn(8) {
			case 0: // an empty field
			case 1:
				b = append(b, "99999"[:1+r.Intn(5)]...)
			case 2:
				b = append(b, '0')
			default:
				b = append(b, fmt.Sprint(r.Intn(300))...)
			}
			if k > 1 || r.Intn(4) == 0 {
				// Fields never run together: vt10x tabs CHT's and
				// CBT's counts one at a time, so a huge one hangs it.
				b = append(b, ';')
			}
		}
	}
	finals := "@ABCDEFGHIJKLMPSTXZ`abcdefghlmnrsu~q"
	for len(b) < n {
		switch r.Intn(17) {
		case 0, 1, 2:
			b = append(b, "the quick brown fox"[:1+r.Intn(19)]...)
		case 3:
			b = append(b, []string{"日本", "é", "e\u0301", "😀", "\u00a0", "\u0085", "\ufffd"}[r.Intn(7)]...)
		case 4:
			b = append(b, []byte{'\r', '\n', '\b', '\t', '\v', '\f', 0x0e, 0x0f, 0x18, 0x1a, 0x07, 0, 0x7f, 0x05}[r.Intn(14)])
		case 5, 6, 7, 8:
			b = append(b, "\x1b["...)
			switch r.Intn(10) {
			case 0:
				b = append(b, []string{"?", ">", "=", "<", " ", "!", ":"}[r.Intn(7)]...)
			case 1:
				b = append(b, []byte{'\n', '\r', 0x18, 0x1b}[r.Intn(4)])
			}
			params()
			if r.Intn(12) == 0 {
				b = append(b, ":2::1"...)
			}
			b = append(b, finals[r.Intn(len(finals))])
		case 9:
			b = append(b, []string{"\x1b7", "\x1b8", "\x1bD", "\x1bE", "\x1bM", "\x1b(0", "\x1b(B", "\x1b#8", "\x1bH", "\x1b=", "\x1b>", "\x1b)0", "\x1b\\"}[r.Intn(13)]...)
		case 10:
			b = append(b, []string{"\x1b]0;title\a", "\x1b]2;t\x1b\\", "\x1bPq#0\x1b\\", "\x1b_x\x1b\\", "\x1bkname\x1b\\"}[r.Intn(5)]...)
		case 11:
			b = append(b, []byte{0xff, 0xc3, 0xe2, 0x80, 0x9c}[r.Intn(5)])
		case 12:
			modes := []string{"?1049h", "?6h", "?7l", "?25l", "4h", "20h", "?1049l", "?6l", "?7h", "4l", "20l", "?1h", "?47h", "?47l"}
			b = append(b, "\x1b["+modes[r.Intn(len(modes))]...)
		case 13:
			b = append(b, fmt.Sprintf("\x1b[%d;%dr", r.Intn(30), r.Intn(30))...)
		case 14:
			// Fields near and past what Atoi takes, where counts are
			// not loops (vt10x tabs CHT's count times).
			b = append(b, "\x1b[2;"...)
			b = append(b, "12345678901234567890123"[:15+r.Intn(8)]...)
			b = append(b, "HmKJ"[r.Intn(4)])
		case 15:
			b = append(b, "\x1b[38;5;"...)
			b = append(b, fmt.Sprint(r.Intn(300))...)
			b = append(b, 'm')
		default:
			b = append(b, "\x1b["...)
			for k := r.Intn(300); k > 0; k-- {
				b = append(b, ';')
			}
			b = append(b, 'm')
		}
	}
	return b
}

// feed writes b to the pair in pieces cut at random points, the way a PTY
// splits a stream, checking after each piece.
func feed(t *testing.T, p pair, r *rand.Rand, b []byte, what string) {
	t.Helper()
	for len(b) > 0 {
		n := 1 + r.Intn(min(len(b), 97))
		p.write(t, b[:n])
		p.check(t, fmt.Sprintf("%s, after %q", what, b[:n]))
		b = b[n:]
	}
}

func TestFastPathRandomStreams(t *testing.T) {
	for seed := int64(1); seed <= 120; seed++ {
		r := rand.New(rand.NewSource(seed))
		p := newPair(1+r.Intn(100), 1+r.Intn(40))
		feed(t, p, r, randomStream(r, 4000), fmt.Sprintf("seed %d", seed))
	}
}

// TestFastPathPrograms replays the real programs' output the screen
// tests use (session/vt's corpus), whole and in pieces.
func TestFastPathPrograms(t *testing.T) {
	paths, err := filepath.Glob("../../session/vt/testdata/replay/*.vt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no replay corpus in ../../session/vt/testdata/replay: %v", err)
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range [][2]int{{80, 24}, {37, 11}, {132, 50}} {
			p := newPair(size[0], size[1])
			p.write(t, b)
			p.check(t, filepath.Base(path)+" whole")
			feed(t, newPair(size[0], size[1]), rand.New(rand.NewSource(int64(len(b)))), b, filepath.Base(path))
		}
	}
}

func FuzzFastPath(f *testing.F) {
	f.Add([]byte("\x1b[1;2H\x1b[38;5;3mhi\x1b[K\r\n\x1b[;5H\x1b[5;H"), uint8(80), uint8(24), uint8(7))
	f.Add([]byte("\x1b[?1049h\x1b[2;10r\x1b[3S\x1b(0qqq\x1b(B\x1b7\x1b[4h\x1b8"), uint8(20), uint8(5), uint8(3))
	f.Add(randomStream(rand.New(rand.NewSource(1)), 600), uint8(40), uint8(12), uint8(50))
	f.Fuzz(func(t *testing.T, b []byte, cols, rows, cut uint8) {
		if hugeCount(b) {
			t.Skip("vt10x tabs CHT's and CBT's counts one at a time: both paths would hang")
		}
		p := newPair(1+int(cols)%200, 1+int(rows)%60)
		step := 1 + int(cut)
		for len(b) > 0 {
			n := min(step, len(b))
			p.write(t, b[:n])
			b = b[n:]
		}
		p.check(t, "fuzz")
	})
}

// hugeCount reports whether b holds a run of more than 6 digits and a
// CHT or CBT final.
func hugeCount(b []byte) bool {
	run, long := 0, false
	for _, c := range b {
		if c >= '0' && c <= '9' {
			run++
			long = long || run > 6
		} else {
			run = 0
		}
	}
	return long && bytes.ContainsAny(b, "IZ")
}

func BenchmarkWritePath(b *testing.B) {
	in := randomStream(rand.New(rand.NewSource(7)), 64<<10)
	var frames bytes.Buffer
	for i := 0; frames.Len() < 64<<10; i++ {
		for y := 1; y <= 24; y++ {
			fmt.Fprintf(&frames, "\x1b[%d;1H\x1b[38;5;%dm %-40s\x1b[39m\x1b[K", y, (i+y)%256, "status row text")
		}
	}
	for _, c := range []struct {
		name string
		p    []byte
	}{{"random", in}, {"frames", frames.Bytes()}} {
		for _, slow := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/slow=%v", c.name, slow), func(b *testing.B) {
				term := New(WithSize(80, 24)).(*terminal)
				term.slow = slow
				b.SetBytes(int64(len(c.p)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					_, _ = term.Write(c.p)
				}
			})
		}
	}
}
