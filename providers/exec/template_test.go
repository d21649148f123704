package exec

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

var spec = providers.Spec{Name: "pod-1", Dir: "/w s", Command: []string{"ls", "a b"}, Size: providers.Size{Cols: 80, Rows: 24}}

func TestTemplateExpand(t *testing.T) {
	for _, c := range []struct {
		tmpl any
		want []string
	}{
		{"kubectl exec -it {name} -- sh", []string{"kubectl", "exec", "-it", "pod-1", "--", "sh"}},
		{"  a\t b\n", []string{"a", "b"}},
		{`a '' "" b`, []string{"a", "", "", "b"}},
		{`--dir={workspace} x{name}y`, []string{"--dir=/w s", "xpod-1y"}},
		{`sh -c 'cd {workspace} && {command}'`, []string{"sh", "-c", "cd '/w s' && ls 'a b'"}},
		{`sh -c "cd {workspace}"`, []string{"sh", "-c", "cd '/w s'"}},
		{`sh -c {command}`, []string{"sh", "-c", "ls 'a b'"}},
		{`a\ b 'c"d' "e\"f\\g\$h" i\'j`, []string{"a b", `c"d`, `e"f\g$h`, "i'j"}},
		{`echo {{name}} {} '{ print }' '${{HOME}}' {term}:{cols}x{rows}`, []string{"echo", "{name}", "{}", "{ print }", "${HOME}", "xterm-256color:80x24"}},
		{`"{name}"'{name}'{name}`, []string{"pod-1pod-1pod-1"}},
		{[]any{"sh", "-c", "cd {workspace}", "{workspace}", "{command}", "--n={name}"},
			[]string{"sh", "-c", "cd '/w s'", "/w s", "ls 'a b'", "--n=pod-1"}},
	} {
		tm, err := ParseTemplate(c.tmpl)
		if err != nil {
			t.Errorf("ParseTemplate(%q): %v", c.tmpl, err)
			continue
		}
		got, err := tm.Expand(spec)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q expands to %q, %v; want %q", c.tmpl, got, err, c.want)
		}
	}
}

func TestTemplateErrors(t *testing.T) {
	for _, c := range []struct {
		tmpl any
		want string
	}{
		{"ssh {host}", "unknown placeholder {host} (use {cols}, {command}, {name}, {rows}, {term}, {workspace}"},
		{"sh -c 'echo ${HOME}'", "unknown placeholder {HOME}"},
		{"a 'b", "unclosed ' quote"},
		{`a "b`, `unclosed " quote`},
		{`a \`, "lone backslash"},
		{"kubectl logs x | less", "not run by a shell, so | does nothing"},
		{"echo $HOME", "so $ does nothing"},
		{"a; b", "so ; does nothing"},
		{int64(3), "not a string or an array"},
		{[]any{"a", true}, "element 2 (true) is not a string"},
	} {
		_, err := ParseTemplate(c.tmpl)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTemplate(%q) = %v, want an error saying %q", c.tmpl, err, c.want)
		}
	}
	for _, tmpl := range []any{"", "   ", []any{}, "{workspace}"} {
		if _, err := ParseOptions(map[string]any{"template": tmpl}); tmpl != "{workspace}" && err == nil {
			t.Errorf("ParseOptions(template = %q) succeeded", tmpl)
		}
	}
	tm, _ := ParseTemplate("{workspace} x")
	if _, err := tm.Expand(providers.Spec{}); err == nil || !strings.Contains(err.Error(), "empty program name") {
		t.Errorf("empty program: %v", err)
	}
}

// For templates without placeholders or operators, the split matches sh's.
func TestTemplateSplitsLikeSh(t *testing.T) {
	for _, s := range []string{
		`a b  c`, `'a b' "c d"`, `a\ b`, `"a\"b" 'a\b'`, `x'y'"z"`, `"\\" "\$" "\a"`, `x '' ""`, "a\tb",
		`--opt="x y" -e 'K=V W'`, `é "ü ö"`,
	} {
		out, err := exec.Command("sh", "-c", `printf '%s\0' `+s).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		tm, err := ParseTemplate(s)
		if err != nil {
			t.Errorf("ParseTemplate(%q): %v", s, err)
			continue
		}
		if got, _ := tm.Expand(providers.Spec{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%q splits into %q; sh gives %q", s, got, want)
		}
	}
}

// FuzzTemplateValuesCannotAddArguments: whatever the values hold, expanding
// a template gives as many arguments as with plain values, and a value at
// the top level arrives unchanged.
func FuzzTemplateValuesCannotAddArguments(f *testing.F) {
	f.Add(`kubectl exec -it {name} -- sh -c 'cd {workspace} && {command}'`, "a b", "it's")
	f.Add(`x {name}{workspace} "{name}"`, `"; rm -rf /`, "$(id)")
	f.Fuzz(func(t *testing.T, tmpl, name, dir string) {
		tm, err := ParseTemplate(tmpl)
		if err != nil {
			return
		}
		plain, err1 := tm.Expand(providers.Spec{Name: "n", Dir: "d", Command: []string{"c"}})
		got, err2 := tm.Expand(providers.Spec{Name: name, Dir: dir, Command: []string{name, dir}})
		if err1 != nil || err2 != nil {
			return // An empty program name; the count is what matters.
		}
		if len(plain) != len(got) {
			t.Fatalf("%q: %d arguments with plain values, %d with %q, %q", tmpl, len(plain), len(got), name, dir)
		}
	})
}
