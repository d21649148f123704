package session

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The reference decoder below is deliberately different code from utf8.go:
// it tries every row of Unicode's table of well-formed sequences (Table 3-7)
// at each position and takes the longest match, which is the definition of
// a maximal subpart read straight off the standard, not an optimised scan.

type byteRange struct{ lo, hi byte }

// wellFormed is Table 3-7 "Well-Formed UTF-8 Byte Sequences", one row per
// line of the table.
var wellFormed = [][]byteRange{
	{{0x00, 0x7F}},
	{{0xC2, 0xDF}, {0x80, 0xBF}},
	{{0xE0, 0xE0}, {0xA0, 0xBF}, {0x80, 0xBF}},
	{{0xE1, 0xEC}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xED, 0xED}, {0x80, 0x9F}, {0x80, 0xBF}},
	{{0xEE, 0xEF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF0, 0xF0}, {0x90, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF1, 0xF3}, {0x80, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF4, 0xF4}, {0x80, 0x8F}, {0x80, 0xBF}, {0x80, 0xBF}},
}

// refMatch returns the length of the longest prefix of p that is a prefix of
// some well-formed sequence, and whether that prefix is a whole sequence.
func refMatch(p []byte) (n int, whole bool) {
	for _, row := range wellFormed {
		m := 0
		for m < len(row) && m < len(p) && row[m].lo <= p[m] && p[m] <= row[m].hi {
			m++
		}
		if m == len(row) {
			return m, true
		}
		n = max(n, m)
	}
	return n, false
}

// refDecode decodes p. When final is false, a trailing valid-but-incomplete
// sequence is returned as carry instead of being replaced.
func refDecode(p []byte, final bool) (text string, carry []byte) {
	var b strings.Builder
	for i := 0; i < len(p); {
		n, whole := refMatch(p[i:])
		switch {
		case whole:
			b.Write(p[i : i+n])
			i += n
		case !final && n > 0 && i+n == len(p):
			return b.String(), p[i:]
		default:
			b.WriteString("\uFFFD")
			i += max(n, 1)
		}
	}
	return b.String(), nil
}

func refFinal(p []byte) string {
	s, _ := refDecode(p, true)
	return s
}

// interestingBytes covers every boundary of every range in Table 3-7.
var interestingBytes = []byte{
	0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
	0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
}

// TestDecodeWindowMatchesReference compares the production decoder with the
// reference on every 1- and 2-byte input, on every 3-byte input built from
// any first byte and boundary bytes, and on 4-byte inputs whose first byte
// can lead a sequence (or fail to) — both mid-stream (carry allowed) and at
// end of output.
func TestDecodeWindowMatchesReference(t *testing.T) {
	check := func(p []byte) {
		for _, final := range []bool{false, true} {
			wantText, wantCarry := refDecode(p, final)
			text, settled, _ := decodeWindow(p, final, nil)
			if text != wantText || !bytes.Equal(p[settled:], wantCarry) {
				t.Fatalf("decodeWindow(% x, final=%v) = %q carry % x; want %q carry % x",
					p, final, text, p[settled:], wantText, wantCarry)
			}
			if len(p)-settled > 3 {
				t.Fatalf("decodeWindow(% x) carries %d bytes; O3 allows 3", p, len(p)-settled)
			}
		}
	}
	for a := range 256 {
		check([]byte{byte(a)})
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
		}
		for _, b := range interestingBytes {
			for _, c := range interestingBytes {
				check([]byte{byte(a), b, c})
				check([]byte{'x', byte(a), b, c, 'y'})
			}
		}
	}
	// Below C0 a byte is ASCII or a stray continuation, which the loops
	// above already cover in every position.
	for a := 0xC0; a <= 0xFF; a++ {
		for _, b := range interestingBytes {
			for _, c := range interestingBytes {
				for _, d := range []byte{0x41, 0x80, 0xBF, 0xC0} {
					check([]byte{byte(a), b, c, d})
				}
			}
		}
	}
}

// TestAppendReplacingWordBoundaries puts errors at every offset around the
// 8-byte ASCII stride, where a fast path is most likely to skip a byte.
func TestAppendReplacingWordBoundaries(t *testing.T) {
	for _, bad := range [][]byte{{0xFF}, {0xE2, 0x82}, {0xF0, 0x9F, 0x98, 0x80}, {0xC3, 0xA9}} {
		for pre := range 20 {
			for post := range 20 {
				p := append(append(bytes.Repeat([]byte("a"), pre), bad...), bytes.Repeat([]byte("b"), post)...)
				if got, want := string(appendReplacing(nil, p)), refFinal(p); got != want {
					t.Fatalf("appendReplacing(% x) = %q, want %q", p, got, want)
				}
			}
		}
	}
}

// pythonDecode runs python3's bytes.decode("utf-8", "replace") on each input:
// an implementation of maximal-subpart replacement that shares no code with
// either decoder here.
func pythonDecode(t *testing.T, inputs [][]byte) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatalf("python3 not found and SANDMUX_REQUIRE_ALL=1: %v", err)
		}
		msg := fmt.Sprintf("SKIPPING python3 cross-check: python3 not found (%v); set SANDMUX_REQUIRE_ALL=1 to make this fatal", err)
		fmt.Fprintln(os.Stderr, msg) // Shown without -v, unlike t.Skip's message.
		t.Skip(msg)
	}
	const script = `import sys
for line in sys.stdin:
    print(bytes.fromhex(line.strip()).decode("utf-8", "replace").encode("utf-8").hex())
`
	var in strings.Builder
	for _, p := range inputs {
		fmt.Fprintln(&in, hex.EncodeToString(p))
	}
	cmd := exec.CommandContext(t.Context(), py, "-c", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 cross-check: %v", err)
	}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		b, err := hex.DecodeString(sc.Text())
		if err != nil {
			t.Fatalf("python3 output %q: %v", sc.Text(), err)
		}
		got = append(got, string(b))
	}
	if len(got) != len(inputs) {
		t.Fatalf("python3 returned %d lines for %d inputs", len(got), len(inputs))
	}
	return got
}
