package play

import (
	"testing"
)

func feedKeys(chunks ...string) []playKey {
	var p keyParser
	var keys []playKey
	for _, c := range chunks {
		p.feed([]byte(c), func(k playKey) { keys = append(keys, k) })
	}
	return keys
}

// Keys are found among the terminal's answers, mouse reports and pastes,
// whose bytes never act as keys.
func TestKeyParser(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		want   []playKey
	}{
		{"plain", []string{" .qQ\x03x"}, []playKey{keyPause, keyStep, keyQuit, keyQuit, keyQuit}},
		{"cursor report", []string{"\x1b[12;40R."}, []playKey{keyStep}},
		{"decrqss answer", []string{"\x1bP1$r2 q\x1b\\ "}, []playKey{keyPause}},
		{"osc colour", []string{"\x1b]11;rgb:0000/0000/0000\x07q"}, []playKey{keyQuit}},
		{"arrow keys", []string{"\x1b[A\x1bOB\x1b[1;5C"}, nil},
		{"alt+q", []string{"\x1bq"}, nil},
		{"esc, then q", []string{"\x1b", "q"}, []playKey{keyQuit}},
		{"x10 mouse", []string{"\x1b[M q. "}, []playKey{keyPause}},
		{"sgr mouse", []string{"\x1b[<0;10;5M."}, []playKey{keyStep}},
		{"paste", []string{"\x1b[200~q . \x1b[201", "~ "}, []playKey{keyPause}},
		{"paste with esc", []string{"\x1b[200~\x1b\x1b[201~q"}, []playKey{keyQuit}},
		{"kitty keys", []string{"\x1b[113u\x1b[32;1u\x1b[46u\x1b[99;5u\x1b[113;3u"}, []playKey{keyQuit, keyPause, keyStep, keyQuit}},
		{"ctrl+c in a broken sequence", []string{"\x1b[12\x03"}, []playKey{keyQuit}},
		{"overlong csi", []string{"\x1b[" + string(make([]byte, 100)) + "q"}, []playKey{keyQuit}},
		{"split sequence", []string{"\x1b[12;", "40R."}, []playKey{keyStep}},
	} {
		got := feedKeys(c.chunks...)
		if len(got) != len(c.want) {
			t.Errorf("%s: keys %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: keys %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// FuzzPlayKeys: any bytes parse without a panic, the sequence buffer stays
// bounded, and a quit typed on its own after them is always seen.
func FuzzPlayKeys(f *testing.F) {
	for _, s := range []string{"q", "\x1b[200~", "\x1bP", "\x1b]", "\x1b[M", "\x1b[113;5u", "\x1b[" + string(make([]byte, 70))} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p keyParser
		p.feed(b, func(playKey) {})
		if len(p.seq) > maxSeq {
			t.Fatalf("sequence buffer %d bytes", len(p.seq))
		}
		// A terminal ends what it started: a string, a paste. After that
		// and a plain q, the parser is back on the ground.
		var quit bool
		p.feed([]byte("\x07\x1b\\\x1b[201~"), func(playKey) {})
		p.feed([]byte("q"), func(k playKey) { quit = quit || k == keyQuit })
		if !quit && p.skip == 0 {
			t.Errorf("q after %q not seen (state %d)", b, p.state)
		}
	})
}
