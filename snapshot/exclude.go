package snapshot

import (
	"fmt"
	"path"
	"strings"
)

// Matcher decides which workspace paths a snapshot leaves out. It
// understands the part of gitignore that workspaces need:
//
//   - "name" (no slash) matches a file or directory of that name at any depth;
//   - a trailing "/" matches directories only ("node_modules/");
//   - a pattern with a slash elsewhere, or a leading "/", is anchored at the
//     workspace root ("/build", "docs/*.md");
//   - "*", "?" and "[...]" match within one path component, "**" matches any
//     number of components ("**/cache", "logs/**", "a/**/b");
//   - "!" re-includes what an earlier pattern excluded; the last matching
//     pattern wins; "#" starts a comment; "\" escapes a leading "!" or "#".
//
// As in git, nothing under an excluded directory can be re-included: the
// directory is not read at all.
type Matcher struct {
	rules []rule
}

type rule struct {
	segs    []string // pattern components; "**" is a component of its own
	negate  bool
	dirOnly bool
	base    bool // no slash: match the last path component only
}

// CompileExclude parses patterns. It refuses a malformed pattern, naming it.
// An empty list gives a Matcher that excludes nothing.
func CompileExclude(patterns []string) (*Matcher, error) {
	m := &Matcher{}
	for _, p := range patterns {
		r, ok, err := parseRule(p)
		if err != nil {
			return nil, fmt.Errorf("exclude pattern %q: %w", p, err)
		}
		if ok {
			m.rules = append(m.rules, r)
		}
	}
	return m, nil
}

func parseRule(p string) (rule, bool, error) {
	p = strings.TrimRight(p, " \t")
	if p == "" || strings.HasPrefix(p, "#") {
		return rule{}, false, nil
	}
	var r rule
	switch {
	case strings.HasPrefix(p, "!"):
		r.negate, p = true, p[1:]
	case strings.HasPrefix(p, `\!`), strings.HasPrefix(p, `\#`):
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly, p = true, strings.TrimRight(p, "/")
	}
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return rule{}, false, fmt.Errorf("matches nothing: write a name or a path")
	}
	r.segs = strings.Split(p, "/")
	r.base = !anchored && len(r.segs) == 1 && r.segs[0] != "**"
	for _, s := range r.segs {
		if s == "" {
			return rule{}, false, fmt.Errorf("empty path component")
		}
		if _, err := path.Match(s, ""); err != nil {
			return rule{}, false, fmt.Errorf("bad glob %q: %w", s, err)
		}
	}
	return r, true, nil
}

// Excluded reports whether rel, a clean slash-separated path relative to
// the workspace root, is left out. It looks at rel itself only; callers
// that see paths without their parents use ExcludedWithin.
func (m *Matcher) Excluded(rel string, isDir bool) bool {
	if m == nil || len(m.rules) == 0 || rel == "." {
		return false
	}
	parts := strings.Split(rel, "/")
	out := false
	for _, r := range m.rules {
		if r.dirOnly && !isDir {
			continue
		}
		var hit bool
		if r.base {
			hit = globMatch(r.segs[0], parts[len(parts)-1])
		} else {
			hit = matchSegs(r.segs, parts)
		}
		if hit {
			out = !r.negate
		}
	}
	return out
}

// ExcludedWithin is Excluded for a path whose parents were not checked
// first (a tar stream): it is also excluded when any parent directory is.
func (m *Matcher) ExcludedWithin(rel string, isDir bool) bool {
	if m == nil || len(m.rules) == 0 {
		return false
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && m.Excluded(rel[:i], true) {
			return true
		}
	}
	return m.Excluded(rel, isDir)
}

// matchSegs matches pattern components against path components; "**"
// takes zero or more path components.
func matchSegs(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(parts) > 0
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegs(rest, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !globMatch(pat[0], parts[0]) {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

func globMatch(pat, name string) bool {
	ok, err := path.Match(pat, name)
	return err == nil && ok
}
