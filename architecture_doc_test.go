package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/ARCHITECTURE.md's package table says, for each package, which of
// sandmux's own packages it imports. The test below keeps that column true
// to `go list` (non-test imports), row by row, and keeps every package of
// the module in the table.

// packageRow is one row of the table: "| `path` | owns | `a`, `b` |", the
// last column "none" when the package imports nothing of sandmux's.
var packageRow = regexp.MustCompile("^\\| `([^`]+)`[^|]*\\|.*\\| ([^|]+) \\|$")

// modulePath is the module the table speaks of; its root is "." there.
const modulePath = "github.com/sandmux/sandmux"

// tableImports reads the package table: each row's path and the sandmux
// imports its last column names, with the line it stands on.
func tableImports(t *testing.T, path string) (rows map[string][]string, lines map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, lines = map[string][]string{}, map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages"
			continue
		case !in:
			continue
		}
		m := packageRow.FindStringSubmatch(line)
		if m == nil || m[1] == "path" {
			continue
		}
		pkg := strings.Fields(m[1])[0] // "`.` (package main)" is "."
		if _, dup := rows[pkg]; dup {
			t.Errorf("%s:%d: a second row for %s", path, n, pkg)
		}
		var imports []string
		if cell := strings.TrimSpace(m[2]); cell != "none" {
			for _, name := range strings.Split(cell, ",") {
				name = strings.Trim(strings.TrimSpace(name), "`")
				if name == "" {
					t.Errorf("%s:%d: %s: the imports column %q is not a list of `pkg`, `pkg` or none", path, n, pkg, cell)
					continue
				}
				imports = append(imports, name)
			}
		}
		rows[pkg], lines[pkg] = imports, n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, lines
}

// listImports is what go list says each package of the module imports
// of the module's own, outside its tests, by the table's names.
func listImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(p string) string {
		if p == modulePath {
			return "."
		}
		return strings.TrimPrefix(p, modulePath+"/")
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var own []string
		for _, imp := range f[1:] {
			if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
				own = append(own, short(imp))
			}
		}
		got[short(f[0])] = own
	}
	return got
}

func TestArchitectureImportsTable(t *testing.T) {
	doc := filepath.Join("docs", "ARCHITECTURE.md")
	rows, lines := tableImports(t, doc)
	listed := listImports(t)
	for pkg, want := range listed {
		said, ok := rows[pkg]
		if !ok {
			t.Errorf("%s: no row for package %s in the package table (go list: it imports %s): add one", doc, pkg, names(want))
			continue
		}
		slices.Sort(said)
		slices.Sort(want)
		if !slices.Equal(said, want) {
			t.Errorf("%s:%d: the row of %s says it imports %s; go list says %s", doc, lines[pkg], pkg, names(said), names(want))
		}
	}
	for pkg := range rows {
		if _, ok := listed[pkg]; !ok && !vendored(pkg) {
			t.Errorf("%s:%d: a row for %s, which go list does not know: remove it, or fix its path", doc, lines[pkg], pkg)
		}
	}
}

// vendored reports whether a row is a module of its own kept in the tree
// (third_party/…), which go list ./... does not list.
func vendored(pkg string) bool {
	_, err := os.Stat(filepath.Join(pkg, "go.mod"))
	return err == nil
}

func names(pkgs []string) string {
	if len(pkgs) == 0 {
		return "none"
	}
	return "`" + strings.Join(pkgs, "`, `") + "`"
}
