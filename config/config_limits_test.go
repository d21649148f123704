package config

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// L1 (a config is bounded before it is decoded): a small hostile config
// is refused before it is decoded, at its file and line, with a message of
// bounded length, allocating little.
func TestContract_L1_HostileConfigRefusedBeforeDecoding(t *testing.T) {
	hermetic(t)
	const sb = "[[sandbox]]\nname = \"a\"\n" // lines 1-2
	deepLines := sb + "command = [\n" + strings.Repeat("[\n", 100)
	tests := []struct {
		name, doc string
		line      int
		msg       string
	}{
		// 200 KB that grew `sandmux check` to 24 GB in the error formatter.
		{"arrays", sb + "env = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n", 3, "nested more than 64 deep"},
		// 1.8 GB inside the TOML decoder.
		{"inline tables", sb + "env = " + strings.Repeat("{a=", 4000) + "1" + strings.Repeat("}", 4000) + "\n", 3, "nested more than 64 deep"},
		{"dotted key", sb + "env." + strings.Repeat("a.", 20_000) + "a = \"x\"\n", 3, "nested more than 64 deep"},
		{"table header", sb + "[" + strings.Repeat("a.", 20_000) + "a]\n", 3, "nested more than 64 deep"},
		{"array of tables header", sb + "[[" + strings.Repeat("a.", 20_000) + "a]]\n", 3, "nested more than 64 deep"},
		// The line is the one where the nesting goes too deep: the
		// header and the key are levels 1 and 2, so the 63rd bracket.
		{"across lines", deepLines, 3 + 62, "nested more than 64 deep"},
		{"too big", sb + strings.Repeat("# "+strings.Repeat("x", 98)+"\n", 11_000), 0, "larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = parseConfig("hostile.toml", []byte(tt.doc)) })
			if err == nil {
				t.Fatal("accepted")
			}
			line := tt.line
			if line == 0 { // the line holding the first byte past the limit
				line = bytes.Count([]byte(tt.doc[:maxConfigSize]), []byte("\n")) + 1
			}
			want := fmt.Sprintf("hostile.toml:%d: ", line)
			if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, tt.msg) || len(msg) > 300 {
				t.Errorf("got %.400q\nwant %q ... %q, at most 300 bytes", msg, want, tt.msg)
			}
			if n > 8<<20 {
				t.Errorf("refusing it allocated %d MiB", n>>20)
			}
			t.Logf("%d KB refused, allocating %d KiB", len(tt.doc)/1000, n>>10)
		})
	}
}

// The nesting scanner counts brackets only where TOML nests: not in any
// string form, comment, or table header, and it stops at 64.
func TestConfigNestingScanner(t *testing.T) {
	hermetic(t)
	many := strings.Repeat("[{", 100)
	doc := "[[sandbox]] # " + many + "\n" +
		"name = \"a" + many + "\" # " + many + "\n" +
		"command = ['" + many + "', \"\\\"" + many + "\", \"\"\"\n" + many + "\n\\\"\"\"\"\"\", '''\n" + many + "\n'''''] # '\n" +
		"[sandbox.env]\n" +
		"\"k" + many + "\" = \"v\"\n" +
		"'" + many + "' = '''" + many + "'''\n" +
		"[\"" + many + "\"]\n" +
		"x = 1\n"
	if err := checkConfigShape("ok.toml", []byte(doc)); err != nil {
		t.Fatalf("refused brackets that do not nest: %v", err)
	}
	// [[sandbox]] and command are levels 1 and 2; 62 brackets reach 64.
	for n, refused := range map[int]bool{62: false, 63: true} {
		doc := "[[sandbox]]\ncommand = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
		if err := checkConfigShape("d.toml", []byte(doc)); (err != nil) != refused {
			t.Errorf("%d brackets: %v, want refused %v", n, err, refused)
		}
	}
}

// No error message grows with the input: quoted values, keys and the TOML
// decoder's own message are shortened, and past the first 100 problems in
// the file the rest are counted, not listed.
func TestContract_L1_ConfigErrorsBounded(t *testing.T) {
	hermetic(t)
	const sb = "[[sandbox]]\nname = \"a\"\n"
	long := strings.Repeat("x", 100_000)
	for name, doc := range map[string]string{
		"long string":      sb + "size = \"" + long + "\"\n",
		"long array":       sb + "command = [[\"" + long + "\", 1, 2], 3]\n",
		"long quoted key":  sb + "\"" + long + "\" = 1\n",
		"long syntax":      sb + "size = " + long + "\n",
		"long env value":   sb + "env = { A = [\"" + long + "\"] }\n",
		"long unknown key": "[ui]\n" + long + " = 1\n" + sb,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseConfig("c.toml", []byte(doc))
			if err == nil {
				t.Fatal("accepted")
			}
			if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, "…") || !strings.HasPrefix(msg, "c.toml:") {
				t.Errorf("message of %d bytes: %.500q", len(msg), msg)
			}
		})
	}
	t.Run("many problems", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(sb)
		for i := range 10_000 {
			fmt.Fprintf(&b, "k%d = 1\n", i)
		}
		_, err := parseConfig("c.toml", []byte(b.String()))
		var joined interface{ Unwrap() []error }
		if !errors.As(err, &joined) {
			t.Fatalf("got %v", err)
		}
		errs := joined.Unwrap()
		last := errs[len(errs)-1].Error()
		if len(errs) != maxProblems+1 || !strings.HasPrefix(last, "c.toml: ") || !strings.Contains(last, "9900 more") {
			t.Errorf("%d errors, the last %q", len(errs), last)
		}
		if first := errs[0].Error(); !strings.HasPrefix(first, "c.toml:3: ") {
			t.Errorf("the first shown is %q, want the first in the file", first)
		}
	})
}
