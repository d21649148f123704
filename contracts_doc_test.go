package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The rules the code keeps are numbered in docs/CONTRACTS.md. The tests
// below keep that file and the code agreeing: a rule cited anywhere in the
// tree is defined there, and every definition is well formed. They also
// keep the README's tables rendering and the docs' links pointing at files
// that exist.

// What counts as a citation of a rule, in a .go file:
//
//   - in a comment, a rule ID: one letter of a known family followed by a
//     number from 1 up, standing alone as a word: "(C12)", "contract S1",
//     "W4:", "CONTRACTS.md O3". A range "O1–O6" or "C2-C4" cites every ID
//     in it. "C0" is never an ID, and "C1" is not one where it names the
//     ECMA-48 control set ("C1 controls", "C1 bytes");
//   - a function named TestContract_<ID>_<Behaviour>.
//
// String literals are not read: test data such as "overlong C1 BF" is not
// a citation. IDs inside other words ("W3C", "0xC1") do not match.
const ruleFamilies = "OSCWTLAEN"

var (
	ruleIDPattern = `[` + ruleFamilies + `][1-9][0-9]*`
	citedRule     = regexp.MustCompile(`\b(` + ruleIDPattern + `)\b(?:\s*[–-]\s*(` + ruleIDPattern + `)\b)?`)
	// controlSet follows a "C1" that names the ECMA-48 control set.
	controlSet   = regexp.MustCompile(`^\s+(control|controls|byte|bytes|character|characters|code|codes|set|range)\b`)
	contractTest = regexp.MustCompile(`^TestContract_(` + ruleIDPattern + `)_[A-Z]`)
	// ruleEntry is one rule in docs/CONTRACTS.md:
	// "- **C12 Kill means gone.** A session counts as killed only when …"
	ruleEntry     = regexp.MustCompile(`^- \*\*(` + ruleIDPattern + `) ([A-Z][^*]*[^*.\s])\.\*\* \S`)
	looksLikeRule = regexp.MustCompile(`^- \*\*` + ruleIDPattern + `\b`)
	// ruleSection heads a family: "## C — cleanup and cancellation".
	ruleSection = regexp.MustCompile(`^## ([` + ruleFamilies + `]) — \S`)
)

// citation is one place a rule is cited.
type citation struct {
	id  string
	pos string // file:line
}

// citationsInComment returns the rule IDs cited in one comment's text.
func citationsInComment(text string) []string {
	var ids []string
	for _, m := range citedRule.FindAllStringSubmatchIndex(text, -1) {
		first := text[m[2]:m[3]]
		if first == "C1" && controlSet.MatchString(text[m[3]:]) {
			continue
		}
		if m[4] < 0 {
			ids = append(ids, first)
			continue
		}
		last := text[m[4]:m[5]]
		ids = append(ids, expandRange(first, last)...)
	}
	return ids
}

// expandRange returns first…last when both are of one family and in
// order, else just the two IDs.
func expandRange(first, last string) []string {
	lo, _ := strconv.Atoi(first[1:])
	hi, _ := strconv.Atoi(last[1:])
	if first[0] != last[0] || hi <= lo || hi-lo > 100 {
		return []string{first, last}
	}
	ids := make([]string, 0, hi-lo+1)
	for n := lo; n <= hi; n++ {
		ids = append(ids, fmt.Sprintf("%c%d", first[0], n))
	}
	return ids
}

// treeCitations parses every .go file of the module (not testdata, not
// hidden directories) and returns the rules cited in comments and in
// contract test names, and any TestContract_ name that does not start
// with a rule ID.
func treeCitations(t *testing.T) (cites []citation, badNames []string) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				for _, id := range citationsInComment(c.Text) {
					cites = append(cites, citation{id, fset.Position(c.Pos()).String()})
				}
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "TestContract_") {
				continue
			}
			pos := fset.Position(fn.Pos()).String()
			if m := contractTest.FindStringSubmatch(fn.Name.Name); m != nil {
				cites = append(cites, citation{m[1], pos})
			} else {
				badNames = append(badNames, fmt.Sprintf("%s: %s", pos, fn.Name.Name))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cites, badNames
}

// ruleDoc is what docs/CONTRACTS.md defines.
type ruleDoc struct {
	titles    map[string]string // ID → title
	malformed []string
}

// parseRules reads the rule entries of a CONTRACTS.md. An entry is one
// list item "- **ID Title.** text" under the "## F — …" heading of its
// family. Malformed: any other list item in a family's section that opens
// with bold text, a list item elsewhere that opens with a bold rule ID, a
// repeated ID, and an entry outside its family's section.
func parseRules(text string) ruleDoc {
	doc := ruleDoc{titles: map[string]string{}}
	family := byte(0)
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			family = 0
			if m := ruleSection.FindStringSubmatch(line); m != nil {
				family = m[1][0]
			}
			continue
		}
		if !strings.HasPrefix(line, "- **") || family == 0 && !looksLikeRule.MatchString(line) {
			continue // a list outside the rules, such as the vocabulary
		}
		m := ruleEntry.FindStringSubmatch(line)
		switch {
		case m == nil:
			doc.malformed = append(doc.malformed, fmt.Sprintf("line %d: %q: write \"- **ID Title.** what the rule says\"", n, line))
		case doc.titles[m[1]] != "":
			doc.malformed = append(doc.malformed, fmt.Sprintf("line %d: %s is defined twice", n, m[1]))
		case m[1][0] != family:
			doc.malformed = append(doc.malformed, fmt.Sprintf("line %d: %s is not under its family's heading \"## %c — …\"", n, m[1], m[1][0]))
		default:
			doc.titles[m[1]] = m[2]
		}
	}
	return doc
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}

// TestContractsDocDefinesEveryCitedRule fails when the code cites a rule
// that docs/CONTRACTS.md does not define, or names a contract test after
// no rule at all.
func TestContractsDocDefinesEveryCitedRule(t *testing.T) {
	doc := parseRules(readDoc(t, "docs/CONTRACTS.md"))
	for _, bad := range doc.malformed {
		t.Errorf("docs/CONTRACTS.md: malformed rule entry, %s", bad)
	}
	cites, badNames := treeCitations(t)
	for _, name := range badNames {
		t.Errorf("%s: a contract test is named TestContract_<ID>_<Behaviour>, ID one of docs/CONTRACTS.md's (families %s)", name, ruleFamilies)
	}
	// The scan must see the tree's citations, or it proves nothing.
	if !slices.ContainsFunc(cites, func(c citation) bool { return c.id == "C12" }) {
		t.Fatalf("found no citation of C12 among %d: the scan of the tree is broken", len(cites))
	}
	undefined := map[string][]string{}
	cited := map[string]bool{}
	for _, c := range cites {
		cited[c.id] = true
		if _, ok := doc.titles[c.id]; !ok {
			undefined[c.id] = append(undefined[c.id], c.pos)
		}
	}
	ids := make([]string, 0, len(undefined))
	for id := range undefined {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		where := undefined[id]
		more := ""
		if len(where) > 3 {
			where, more = where[:3], fmt.Sprintf(" and %d more", len(undefined[id])-3)
		}
		t.Errorf("rule %s is cited at %s%s but docs/CONTRACTS.md does not define it: add \"- **%s Title.** …\" under its family",
			id, strings.Join(where, ", "), more, id)
	}
	for id := range doc.titles {
		if !cited[id] {
			t.Logf("rule %s (%s) is defined but not cited yet", id, doc.titles[id])
		}
	}
}

func TestCitationsInComment(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"// registered or cleaned (contract S1).", []string{"S1"}},
		{"// (C12)", []string{"C12"}},
		{"// W4: rename only once complete", []string{"W4"}},
		{"// (W2, W3)", []string{"W2", "W3"}},
		{"// contracts W3 and C2-C4 apply", []string{"W3", "C2", "C3", "C4"}},
		{"// Contracts O1–O8, S1–S3 and C1–C12", append(append(expandRange("O1", "O8"), expandRange("S1", "S3")...), expandRange("C1", "C12")...)},
		{"// CONTRACTS.md O3 lists the same", []string{"O3"}},
		{"// teardown cancelled (C1), bounded (C9)", []string{"C1", "C9"}},
		{"// untrusted text is escaped (T1); config bounded (L1)", []string{"T1", "L1"}},
		{"// C0 controls and DEL are dropped", nil},
		{"// C1 controls (0x80–0x9f) are dropped", nil},
		{"// the 8-bit C1 bytes", nil},
		{"// Below C0 a byte is ASCII", nil},
		{"// W3C, 0xC1, X12, c12, O0 and C12x are not rule IDs", nil},
	} {
		got := citationsInComment(tc.text)
		if !slices.Equal(got, tc.want) {
			t.Errorf("citationsInComment(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestParseRulesRefusesMalformedEntries(t *testing.T) {
	doc := parseRules(`# rules

## C — cleanup

- **C1 Cleanup settles before the caller returns.** A caller waits.
- **C2 The first cause wins** no period inside the bold.
- **C3** no title.
- **C1 Again.** A repeat.
- **W1 The UI stays live.** Out of its section.
- **C4 Without cancellation, errors surface unchanged.**

## Words

- **window** is not a rule.
- **C5 Teardown steps are independent.** Outside every family.

## W — workspace

- **W2 Cancellation waits for the worker.** It waits.
`)
	if got, want := len(doc.malformed), 6; got != want {
		t.Errorf("%d malformed entries, want %d: %q", got, want, doc.malformed)
	}
	for id, title := range map[string]string{"C1": "Cleanup settles before the caller returns", "W2": "Cancellation waits for the worker"} {
		if doc.titles[id] != title {
			t.Errorf("title of %s = %q, want %q", id, doc.titles[id], title)
		}
	}
}

// docFiles are the markdown files the repository renders: the README and
// the docs.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, files...)
}

var (
	tableSeparator = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)
	tableRow       = regexp.MustCompile(`^ {0,3}\|`)
)

// tableProblems checks the markdown tables of text as GitHub renders
// them: a table is a run of lines that start with "|", outside fenced code;
// its first line is the header, its second the "|---|" separator with as
// many cells, and every row has that many cells. A run without its
// separator is what a blank line inside a table leaves: rows rendered as
// raw pipes.
func tableProblems(text string) []string {
	var problems []string
	lines := strings.Split(text, "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !tableRow.MatchString(lines[i]) {
			continue
		}
		start := i
		for i+1 < len(lines) && tableRow.MatchString(lines[i+1]) {
			i++
		}
		rows := lines[start : i+1]
		if len(rows) < 2 || !tableSeparator.MatchString(strings.TrimSpace(rows[1])) {
			problems = append(problems, fmt.Sprintf("line %d: table rows without a header row and a |---| separator under it (a blank line inside a table splits it)", start+1))
			continue
		}
		want := tableCells(rows[0])
		for k, row := range rows[1:] {
			if n := tableCells(row); n != want {
				problems = append(problems, fmt.Sprintf("line %d: %d cells, the header has %d (escape a | inside a cell as \\|)", start+2+k, n, want))
			}
		}
	}
	return problems
}

// tableCells counts the cells of a table row: the unescaped pipes between
// the outer ones.
func tableCells(row string) int {
	row = strings.TrimSpace(row)
	n := -1
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	if !strings.HasSuffix(row, "|") {
		n++
	}
	return n
}

// TestDocsTablesRender fails when a table in the README or the docs would
// not render as one: no header row and separator, or a blank line
// splitting it.
func TestDocsTablesRender(t *testing.T) {
	for _, path := range docFiles(t) {
		for _, p := range tableProblems(readDoc(t, path)) {
			t.Errorf("%s: %s", path, p)
		}
	}
}

func TestTableProblems(t *testing.T) {
	good := "| a | b |\n|---|---|\n| `x` | y \\| z |\n\ntext\n\n```\n| not a table\n```\n"
	if p := tableProblems(good); len(p) != 0 {
		t.Errorf("a good table: %q", p)
	}
	split := "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n| 5 | 6 |\n"
	if p := tableProblems(split); len(p) != 1 || !strings.HasPrefix(p[0], "line 5:") {
		t.Errorf("a table split by a blank line: %q, want one problem at line 5", p)
	}
	ragged := "| a | b |\n|:--|--:|\n| 1 | 2 | 3 |\n"
	if p := tableProblems(ragged); len(p) != 1 || !strings.HasPrefix(p[0], "line 3:") {
		t.Errorf("a row with an extra cell: %q, want one problem at line 3", p)
	}
}

var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinksResolve fails when the README or a doc links to a file of
// the repository that does not exist.
func TestDocsLinksResolve(t *testing.T) {
	for _, path := range docFiles(t) {
		for _, m := range docLink.FindAllStringSubmatch(readDoc(t, path), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", path, m[1])
			}
		}
	}
}
