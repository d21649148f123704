package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatcher(t *testing.T) {
	tests := []struct {
		patterns []string
		path     string
		dir      bool
		want     bool
	}{
		{[]string{"node_modules/"}, "node_modules", true, true},
		{[]string{"node_modules/"}, "web/node_modules", true, true},
		{[]string{"node_modules/"}, "node_modules", false, false}, // a file of that name stays
		{[]string{"*.log"}, "a/b/c.log", false, true},
		{[]string{"*.log"}, "a/b/c.log.txt", false, false},
		{[]string{"/build"}, "build", true, true},
		{[]string{"/build"}, "src/build", true, false},
		{[]string{"docs/*.md"}, "docs/a.md", false, true},
		{[]string{"docs/*.md"}, "x/docs/a.md", false, false},
		{[]string{"docs/*.md"}, "docs/sub/a.md", false, false},
		{[]string{"**/cache"}, "cache", true, true},
		{[]string{"**/cache"}, "a/b/cache", false, true},
		{[]string{"logs/**"}, "logs/a/b", false, true},
		{[]string{"logs/**"}, "logs", true, false},
		{[]string{"a/**/b"}, "a/b", true, true},
		{[]string{"a/**/b"}, "a/x/y/b", true, true},
		{[]string{"a/**/b"}, "a/x/y/c", true, false},
		{[]string{"*.log", "!keep.log"}, "keep.log", false, false},
		{[]string{"*.log", "!keep.log"}, "drop.log", false, true},
		{[]string{"!keep.log", "*.log"}, "keep.log", false, true}, // the last match wins
		{[]string{"# comment", "", "  "}, "# comment", false, false},
		{[]string{`\#hash`}, "#hash", false, true},
		{[]string{`\!bang`}, "!bang", false, true},
		{[]string{"file?.txt"}, "file1.txt", false, true},
		{[]string{"[ab].c"}, "b.c", false, true},
		{[]string{".cache/"}, "home/.cache", true, true},
	}
	for _, tc := range tests {
		m, err := CompileExclude(tc.patterns)
		if err != nil {
			t.Fatalf("%q: %v", tc.patterns, err)
		}
		if got := m.Excluded(tc.path, tc.dir); got != tc.want {
			t.Errorf("%q on %q (dir %v): got %v, want %v", tc.patterns, tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestMatcherWithinExcludedDirectory(t *testing.T) {
	m, _ := CompileExclude([]string{"node_modules/", "!node_modules/keep.js"})
	if !m.ExcludedWithin("web/node_modules/keep.js", false) {
		t.Error("a file under an excluded directory was re-included; git cannot do that either")
	}
	if m.ExcludedWithin("web/src/keep.js", false) {
		t.Error("excluded a file outside the pattern")
	}
}

func TestCompileExcludeNamesBadPattern(t *testing.T) {
	for _, p := range []string{"[", "a//b", "/"} {
		_, err := CompileExclude([]string{"ok", p})
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: got %v, want an error naming it", p, err)
		}
	}
}

// TestSaveExcludes: both sources leave excluded paths out and keep the
// rest, and the manifest records the patterns.
func TestSaveExcludes(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	for _, p := range []string{"web/node_modules/x/index.js", "web/src/a.js", "debug.log", "keep.log", "build/out.bin", "src/build/x.go"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patterns := []string{"node_modules/", "*.log", "!keep.log", "/build"}
	want := "debug.log=false keep.log=true web/node_modules=false web/src/a.js=true build=false src/build/x.go=true"
	for name, src := range map[string]Source{"dir": DirSource(ws), "tar": tarOf(ws)} {
		archive := filepath.Join(t.TempDir(), name+".tar.zst")
		m, err := Save(context.Background(), src, archive, SaveOptions{Exclude: patterns})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Exclude) != len(patterns) {
			t.Errorf("%s: manifest exclude %q", name, m.Exclude)
		}
		dst := filepath.Join(t.TempDir(), "out")
		if _, err := Restore(context.Background(), archive, dst, RestoreOptions{}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range strings.Fields(want) {
			p, _, _ := strings.Cut(f, "=")
			got = append(got, p+"="+map[bool]string{true: "true", false: "false"}[exists(filepath.Join(dst, p))])
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s source:\n got %s\nwant %s", name, g, want)
		}
	}
}
