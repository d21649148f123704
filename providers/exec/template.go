package exec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sandmux/sandmux/providers"
)

// Template is a parsed command template: the arguments of the command to
// run, with placeholders still in them. Expand fills them in for a spec.
//
// The template is never run by a shell. The string form is split into
// arguments the way sh splits words (blanks separate them; '...', "..."
// and backslash quote), without expansions or operators: an unquoted | ; &
// < > ( ) $ or ` is an error, since a user who writes one expects a shell.
// Each placeholder becomes exactly its value, with no way to end the
// argument it is in, so values cannot inject arguments or commands:
//
//   - outside quotes, the value is inserted as is: `kubectl exec -it {name}`
//     passes the name as one argument, whatever it contains;
//   - inside quotes, the value is inserted shell-quoted, because quoted
//     text in a template is a script for a shell the command starts
//     (`sh -c 'cd {workspace} && exec sh'`), which then reads back exactly
//     the value.
//
// The array form gives the arguments directly: an element that is exactly
// one placeholder becomes the value as is, and placeholders inside a longer
// element are shell-quoted, as inside quotes above.
//
// {command} is already shell text (the spec's arguments, each quoted, or
// empty when the spec has none): it is inserted as is everywhere, and is
// meant for a shell, as in `sh -c {command}`.
type Template struct {
	source string
	args   [][]part
}

// part is literal text, or a placeholder and whether to shell-quote it.
type part struct {
	lit, name string
	quoted    bool
}

// placeholders are the names a template may use, and their values.
var placeholders = map[string]func(providers.Spec) string{
	"name":      func(s providers.Spec) string { return s.Name },
	"workspace": func(s providers.Spec) string { return s.Dir },
	"command":   func(s providers.Spec) string { return shellJoin(s.Command) },
	"term":      func(s providers.Spec) string { return s.TermOrDefault() },
	"cols":      func(s providers.Spec) string { return strconv.Itoa(int(s.Size.Cols)) },
	"rows":      func(s providers.Spec) string { return strconv.Itoa(int(s.Size.Rows)) },
}

// ParseTemplate parses a template as decoded from TOML: a string, or an
// array of strings ([]any or []string).
func ParseTemplate(v any) (Template, error) {
	switch v := v.(type) {
	case string:
		return parseString(v)
	case []string:
		return parseArray(v)
	case []any:
		list := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return Template{}, fmt.Errorf("element %d (%v) is not a string (write every argument in double quotes)", i+1, e)
			}
			list[i] = s
		}
		return parseArray(list)
	}
	return Template{}, fmt.Errorf("%v is not a string or an array of strings (write e.g. \"kubectl exec -it {name} -- sh\")", v)
}

// String returns the template as written.
func (t Template) String() string { return t.source }

// Expand returns the command for spec: the template's arguments with every
// placeholder replaced.
func (t Template) Expand(spec providers.Spec) ([]string, error) {
	if len(t.args) == 0 {
		return nil, errors.New("the template is empty (set template to the command to run)")
	}
	argv := make([]string, len(t.args))
	for i, arg := range t.args {
		var b strings.Builder
		for _, p := range arg {
			switch {
			case p.name == "":
				b.WriteString(p.lit)
			case p.quoted && p.name != "command":
				b.WriteString(quote(placeholders[p.name](spec)))
			default:
				b.WriteString(placeholders[p.name](spec))
			}
		}
		argv[i] = b.String()
	}
	if argv[0] == "" {
		return nil, fmt.Errorf("the template %q expands to an empty program name", t.source)
	}
	return argv, nil
}

func parseArray(list []string) (Template, error) {
	t := Template{source: fmt.Sprintf("%q", list)}
	for _, s := range list {
		parts, err := placeholderParts(s, true)
		if err != nil {
			return Template{}, err
		}
		if len(parts) == 1 && parts[0].name != "" {
			parts[0].quoted = false
		}
		t.args = append(t.args, parts)
	}
	return t, nil
}

// parseString splits s like sh, without expansions; see Template.
func parseString(s string) (Template, error) {
	sc := templateScan{t: Template{source: s}}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		next, err := sc.step(s, rs, i)
		if err != nil {
			return Template{}, err
		}
		i = next
	}
	if err := sc.flush(false); err != nil {
		return Template{}, err
	}
	sc.endArg()
	return sc.t, nil
}

// templateScan is parseString's state: the template so far, the
// argument being made and the literal text of its current run.
type templateScan struct {
	t     Template
	arg   []part
	text  strings.Builder // literal text of the current run
	inArg bool
}

// step takes the rune at rs[i] of s and returns the index of the last
// rune it took (a quote or an escape takes more than one).
func (sc *templateScan) step(s string, rs []rune, i int) (int, error) {
	c := rs[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n':
		if err := sc.flush(false); err != nil {
			return i, err
		}
		sc.endArg()
	case c == '\'' || c == '"':
		return sc.quote(s, rs, i)
	case c == '\\':
		if i+1 == len(rs) {
			return i, fmt.Errorf("%q ends with a lone backslash", s)
		}
		i++
		sc.text.WriteRune(rs[i])
		sc.inArg = true
	case strings.ContainsRune("|;&<>()$`", c):
		return i, fmt.Errorf("%q: the template is not run by a shell, so %c does nothing there (quote it, or run a shell: sh -c '...')", s, c)
	default:
		sc.text.WriteRune(c)
		sc.inArg = true
	}
	return i, nil
}

// quote takes the quote that opens at rs[i] and returns where it closes.
func (sc *templateScan) quote(s string, rs []rune, i int) (int, error) {
	if err := sc.flush(false); err != nil {
		return i, err
	}
	end := unquote(rs, i, &sc.text)
	if end == len(rs) {
		return i, fmt.Errorf("%q has an unclosed %c quote", s, rs[i])
	}
	if err := sc.flush(true); err != nil {
		return i, err
	}
	sc.inArg = true
	if len(sc.arg) == 0 {
		sc.arg = []part{{}} // '' is an empty argument, not nothing
	}
	return end, nil
}

// flush ends a run of text in one quoting context, finding its
// placeholders.
func (sc *templateScan) flush(quoted bool) error {
	if sc.text.Len() == 0 {
		return nil
	}
	parts, err := placeholderParts(sc.text.String(), quoted)
	sc.text.Reset()
	sc.arg = append(sc.arg, parts...)
	return err
}

// endArg ends a word: the argument it made, if any.
func (sc *templateScan) endArg() {
	if sc.inArg {
		sc.t.args = append(sc.t.args, sc.arg)
		sc.arg, sc.inArg = nil, false
	}
}

// unquote writes the text of the quote that opens at rs[i] to text, a
// double quote's escapes undone, and returns where the quote closes:
// len(rs) when it does not.
func unquote(rs []rune, i int, text *strings.Builder) int {
	c, end := rs[i], i+1
	for end < len(rs) && rs[end] != c {
		if c == '"' && rs[end] == '\\' && end+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[end+1]) {
			end++
		}
		text.WriteRune(rs[end])
		end++
	}
	return end
}

// placeholderParts splits text into literals and {placeholders}. "{{" and
// "}}" stand for literal braces; a brace that does not start
// {identifier} is literal too ("{}", "{ print }").
func placeholderParts(text string, quoted bool) ([]part, error) {
	var parts []part
	var lit strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if (c == '{' || c == '}') && i+1 < len(text) && text[i+1] == c {
			lit.WriteByte(c)
			i++
			continue
		}
		if c != '{' {
			lit.WriteByte(c)
			continue
		}
		end := strings.IndexByte(text[i:], '}')
		name := ""
		if end > 0 {
			name = text[i+1 : i+end]
		}
		if !isIdent(name) {
			lit.WriteByte(c)
			continue
		}
		if _, ok := placeholders[name]; !ok {
			return nil, fmt.Errorf("unknown placeholder {%s} (use %s; write {{ and }} for literal braces, e.g. ${{HOME}})", name, placeholderList())
		}
		if lit.Len() > 0 {
			parts = append(parts, part{lit: lit.String()})
			lit.Reset()
		}
		parts = append(parts, part{name: name, quoted: quoted})
		i += end
	}
	if lit.Len() > 0 || len(parts) == 0 {
		parts = append(parts, part{lit: lit.String()})
	}
	return parts, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func placeholderList() string {
	var names []string
	for n := range placeholders {
		names = append(names, "{"+n+"}")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// shellJoin quotes each argument for a POSIX shell and joins them.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// quote returns s as one word for a POSIX shell: unchanged when it holds
// only characters no shell treats specially, else in single quotes.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
