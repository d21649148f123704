package server

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	uv "github.com/charmbracelet/ultraviolet"
)

// guardAll runs chunks through a guard, each chunk one read, and returns
// everything it passed on once the input ended.
func guardAll(t testing.TB, readOnly bool, chunks ...[]byte) []byte {
	t.Helper()
	r := &chunkReader{chunks: chunks}
	g := newInputGuard(r, readOnly)
	defer g.Close(nil)
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatalf("read the guard: %v", err)
	}
	return out
}

// chunkReader returns one chunk a read, then io.EOF.
type chunkReader struct{ chunks [][]byte }

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	return n, nil
}

// decodable checks what the decoder is handed: each event decodes at once
// (no event it must wait on: an unknown one, or ESC with one byte), and
// each piece of a paste is at most maxPaste bytes. It returns the pastes'
// contents and what came outside them.
func decodable(t testing.TB, out []byte) (pastes []string, rest string) {
	t.Helper()
	var d uv.EventDecoder
	var piece, outside strings.Builder
	in := false
	for len(out) > 0 {
		n, ev := d.Decode(out)
		if n <= 0 {
			t.Fatalf("the decoder took nothing of %q", out[:min(len(out), 40)])
		}
		if _, ok := ev.(uv.UnknownEvent); ok {
			t.Fatalf("the decoder would wait on %q", out[:n])
		}
		if out[0] == esc && n <= 2 {
			t.Fatalf("the decoder would wait on ESC and %q", out[:n])
		}
		switch ev.(type) {
		case uv.PasteStartEvent:
			in = true
			piece.Reset()
		case uv.PasteEndEvent:
			if !in {
				t.Fatalf("a paste's end with no start")
			}
			in = false
			if piece.Len() > maxPaste {
				t.Fatalf("a paste's piece of %d bytes, over %d", piece.Len(), maxPaste)
			}
			pastes = append(pastes, piece.String())
		default:
			if in {
				piece.Write(out[:n])
			} else {
				outside.Write(out[:n])
			}
		}
		if in && piece.Len() > maxPaste {
			t.Fatalf("a paste's piece grew to %d bytes, over %d", piece.Len(), maxPaste)
		}
		out = out[n:]
	}
	return pastes, outside.String()
}

// The attack of issue 20: a paste that never ends reaches the decoder in
// bounded pieces, all of it, each bracketed.
func TestContract_A13_PasteWithoutEndIsBounded(t *testing.T) {
	body := bytes.Repeat([]byte("echo pasted line\n"), (3*maxPaste)/17+100)
	var chunks [][]byte
	chunks = append(chunks, []byte("\x1b[200~"))
	for b := body; len(b) > 0; b = b[min(len(b), 1000):] {
		chunks = append(chunks, b[:min(len(b), 1000)])
	}
	out := guardAll(t, false, chunks...)
	// The paste never ended: the decoder is left in one, with at most a
	// piece held.
	pastes, _ := decodable(t, append(out, pasteEnd...))
	if len(pastes) < 3 {
		t.Fatalf("a paste of %d bytes came as %d pieces", len(body), len(pastes))
	}
	if got := strings.Join(pastes, ""); got != string(body) {
		t.Errorf("the pieces join to %d bytes, want the %d pasted", len(got), len(body))
	}
}

// A read-only client's paste reaches the decoder empty, however long.
func TestContract_A13_ReadOnlyPasteDroppedBeforeDecoding(t *testing.T) {
	big := bytes.Repeat([]byte("x\x1b[Ay\x1bz"), 100000)
	out := guardAll(t, true, []byte("a\x1b[200~"), big, []byte("\x1b[201~b"))
	if want := "a" + pasteStart + pasteEnd + "b"; string(out) != want {
		t.Errorf("a read-only paste came through as %q…, want %q", out[:min(len(out), 60)], want)
	}
}

// What a terminal sends, keys and mouse reports, passes as it was,
// however the reads split it.
func TestInputGuardPassesKeys(t *testing.T) {
	in := "ls -l\r\x1b[A\x1b[1;5C\x1bOP\x1b[<0;12;5M\x1b[<0;12;5m\x1b[M !!\x1b[I\x1b[O\x1b[3~héllo 日本 🙂\t\x7f\x03" +
		"\x1b[200~pasted \x1b[31mred\x1b[m text\x1b[201~done"
	for split := 1; split <= len(in); split++ {
		var chunks [][]byte
		for s := []byte(in); len(s) > 0; s = s[min(len(s), split):] {
			chunks = append(chunks, s[:min(len(s), split)])
		}
		if out := guardAll(t, false, chunks...); string(out) != in {
			t.Fatalf("in reads of %d bytes, %q came through as %q", split, in, out)
		}
	}
}

// Input the decoder would sit on comes through as what it would have
// become, or not at all.
func TestInputGuardRewritesWhatTheDecoderWaitsOn(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"alt+x", "\x1bxy", altKeys['x'] + "y"},
		{"alt+shift+x", "\x1bX", altKeys['X']},
		{"esc esc", "\x1b\x1b[A", escapeKey + "\x1b[A"},
		{"not UTF-8", "a\xffb\xc3(c\xed\xa0\x80d", "a" + "b" + "(c" + "d"},
		{"OSC dropped but a colour answer", "a\x1b]11;rgb:0/0/0\x07b\x1b]52;c;" + strings.Repeat("QUFB", 100000) + "\x1b\\c", "a\x1b]11;rgb:0/0/0\x1b\\bc"},
		{"DCS dropped", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"string cancelled", "a\x1b]0;x\x1bAb", "aAb"},
		{"CSI with a control", "a\x1b[1\x01b", "a\x01b"},
		{"CSI too long", "a\x1b[" + strings.Repeat("1;", 40) + "Hb", "ab"},
		{"parameter too long", "a\x1b[1234567890Hb", "ab"},
		{"stray paste end", "a\x1b[201~b", "ab"},
		{"paste start inside a paste", "\x1b[200~a\x1b[200~b\x1b[201~", pasteStart + "ab" + pasteEnd},
		{"ESC in a paste", "\x1b[200~a\x1bqb\x1b[201~", pasteStart + "aqb" + pasteEnd},
		{"8-bit CSI", "a\x9b31mb", "a31mb"},
	} {
		out := guardAll(t, false, []byte(c.in))
		if string(out) != c.want {
			t.Errorf("%s: %q came through as %q, want %q", c.name, c.in[:min(len(c.in), 60)], out[:min(len(out), 60)], c.want)
		}
		decodable(t, out)
	}
}

// An ESC that nothing follows becomes the Escape key once escWait passed;
// one the next read completes is what the two make together.
func TestInputGuardEscapeKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, w := io.Pipe()
		g := newInputGuard(r, false)
		got := make(chan string, 1)
		read := func() {
			p := make([]byte, 64)
			n, _ := g.Read(p)
			got <- string(p[:n])
		}
		go read()
		_, _ = w.Write([]byte("\x1b"))
		synctest.Wait()
		select {
		case s := <-got:
			t.Fatalf("an ESC came through before escWait: %q", s)
		default:
		}
		// The fake clock moves on only once everything is blocked: the
		// guard's wait ran out.
		if s := <-got; s != escapeKey {
			t.Errorf("a lone ESC came through as %q, want %q", s, escapeKey)
		}
		go read()
		_, _ = w.Write([]byte("\x1b"))
		_, _ = w.Write([]byte("[A"))
		if s := <-got; s != "\x1b[A" {
			t.Errorf("ESC and [A in two reads came through as %q", s)
		}
		_ = w.Close()
		if _, err := g.Read(make([]byte, 8)); !errors.Is(err, io.EOF) {
			t.Errorf("after the input ended: %v, want io.EOF", err)
		}
		g.Close(nil)
	})
}

// FuzzInputGuard: whatever the input and however reads split it, the
// decoder is handed only what it decodes at once, pastes in bounded
// pieces, a read-only client's empty.
func FuzzInputGuard(f *testing.F) {
	for _, s := range []string{"ls\r", "\x1b[200~abc\x1b[201~", "\x1bx\x1b", "\x1b]0;t\x07", "\x1b[<0;1;2M", "\xff\xc3", "\x1b[M\xff\xff\xff", "\x1b[200;1~x"} {
		f.Add([]byte(s), uint8(3), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint8, readOnly bool) {
		n := int(split)%16 + 1
		var chunks [][]byte
		for s := in; len(s) > 0; s = s[min(len(s), n):] {
			chunks = append(chunks, s[:min(len(s), n)])
		}
		out := guardAll(t, readOnly, chunks...)
		pastes, _ := decodable(t, out)
		if readOnly {
			for _, p := range pastes {
				if p != "" {
					t.Fatalf("a read-only paste carried %q", p)
				}
			}
		}
	})
}

// The answers to the colour queries the server makes of a client's
// terminal pass whole, BEL or ST ended, as ST; any other string, or a
// colour answer past maxOSC, is dropped.
func TestInputGuardPassesColourAnswers(t *testing.T) {
	long := "\x1b]11;rgb:" + strings.Repeat("f", 200) + "\x1b\\"
	for _, tc := range []struct{ in, want string }{
		{"\x1b]11;rgb:fafa/f0f0/e6e6\x1b\\", "\x1b]11;rgb:fafa/f0f0/e6e6\x1b\\"},
		{"\x1b]10;rgb:1010/1010/1010\x07a", "\x1b]10;rgb:1010/1010/1010\x1b\\a"},
		{"\x1b]12;rgb:0/0/0\x1b\\", "\x1b]12;rgb:0/0/0\x1b\\"},
		{"\x1b]52;c;c2VjcmV0\x07b", "b"},
		{"\x1b]2;title\x1b\\", ""},
		{long + "c", "c"},
		{"\x1bP>|kitty\x1b\\d", "d"},
	} {
		if got := string(guardAll(t, false, []byte(tc.in))); got != tc.want {
			t.Errorf("guard(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A paste whose read ends inside an escape sequence, with a pause longer
// than escWait before the rest (a slow link), comes through whole: the
// decoder waits on nothing inside a paste, so the guard does not either.
// It dropped the sequence's start when the pause came.
func TestInputGuardPastePausedInASequence(t *testing.T) {
	var out []byte
	tk := tokenizer{out: &out}
	feed := func(s string) {
		for _, b := range []byte(s) {
			tk.feed(b)
		}
	}
	feed("\x1b[200~pasted \x1b[")
	if tk.holding() {
		t.Error("the guard times what it holds inside a paste: a pause would end it")
	}
	tk.expire() // what a pause does to what is held
	feed("31mred\x1b[201~")
	if want := "\x1b[200~pasted \x1b[31mred\x1b[201~"; string(out) != want {
		t.Errorf("the paste came through as %q, want %q", out, want)
	}
}
