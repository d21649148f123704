package config

// The kinds of config values: how each is read from TOML, checked and
// normalised. Each takes the field it fills, so the options tables in
// options.go stay one line of wiring per key.

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sandmux/sandmux/human"
	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/snapshot"
)

func stringKind[T any](field func(*T) *string, check func(string) (string, error)) kind[T] {
	k := kind[T]{
		typ: "string",
		set: func(t *T, v any) error {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s is not a string (write it in double quotes)", literal(v))
			}
			*field(t) = s
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
	if check != nil {
		k.check = func(t *T) error {
			s, err := check(*field(t))
			if err == nil {
				*field(t) = s
			}
			return err
		}
	}
	return k
}

func intKind[T any](field func(*T) *int, lo, hi int) kind[T] {
	return kind[T]{
		typ: fmt.Sprintf("integer, %d to %d", lo, hi),
		set: func(t *T, v any) error {
			n, ok := v.(int64)
			if !ok {
				return fmt.Errorf("%s is not a whole number (write e.g. %d, without quotes)", literal(v), hi/2)
			}
			// Checked here too, before a huge number could wrap in an int.
			if n < int64(lo) || n > int64(hi) {
				return fmt.Errorf("%d is out of range (use %d to %d)", n, lo, hi)
			}
			*field(t) = int(n)
			return nil
		},
		check: func(t *T) error {
			if n := *field(t); n < lo || n > hi {
				return fmt.Errorf("%d is out of range (use %d to %d)", n, lo, hi)
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

func durationKind[T any](field func(*T) *time.Duration, lo, hi time.Duration) kind[T] {
	return kind[T]{
		typ: fmt.Sprintf("duration, %q to %q", human.Duration(lo), human.Duration(hi)),
		set: func(t *T, v any) error {
			s, ok := v.(string)
			d, err := time.ParseDuration(s)
			if !ok || err != nil {
				return fmt.Errorf(`%s is not a duration (write e.g. "2s" or "500ms")`, literal(v))
			}
			*field(t) = d
			return nil
		},
		check: func(t *T) error {
			if d := *field(t); d < lo || d > hi {
				return fmt.Errorf("%q is out of range (use %q to %q)", human.Duration(d), human.Duration(lo), human.Duration(hi))
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

// maxSide bounds a terminal side: big enough for any real screen, small
// enough that a screen buffer stays a few megabytes.
const maxSide = 1000

func sizeKind[T any](field func(*T) *providers.Size) kind[T] {
	return kind[T]{
		typ: `"COLSxROWS"`,
		set: func(t *T, v any) error {
			s, _ := v.(string)
			cols, rows, ok := strings.Cut(strings.ToLower(s), "x")
			c, errC := strconv.ParseUint(cols, 10, 16)
			r, errR := strconv.ParseUint(rows, 10, 16)
			if !ok || errC != nil || errR != nil {
				return fmt.Errorf(`%s is not a size (write "COLSxROWS", e.g. "80x24")`, literal(v))
			}
			*field(t) = providers.Size{Cols: uint16(c), Rows: uint16(r)}
			return nil
		},
		check: func(t *T) error {
			if sz := *field(t); sz.Cols < 1 || sz.Rows < 1 || sz.Cols > maxSide || sz.Rows > maxSide {
				return fmt.Errorf("%q is out of range (columns and rows each from 1 to %d)", sz.String(), maxSide)
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

func commandKind[T any](field func(*T) *[]string) kind[T] {
	return kind[T]{
		typ: "string or array of strings",
		set: func(t *T, v any) error {
			switch v := v.(type) {
			case string:
				*field(t) = nil
				if v != "" {
					*field(t) = []string{"sh", "-c", v}
				}
				return nil
			case []any:
				if len(v) == 0 {
					return errors.New(`[] runs nothing (write the program and its arguments, or "" for the provider's shell)`)
				}
				argv, err := stringList(v)
				*field(t) = argv
				return err
			}
			return fmt.Errorf(`%s is not a command (write a string for sh -c, e.g. "make watch", or an array, e.g. ["make", "watch"])`, literal(v))
		},
		check: func(t *T) error {
			if argv := *field(t); len(argv) > 0 && argv[0] == "" {
				return subKey("[0]", errors.New(`the program name is empty (write one, e.g. "bash")`))
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

// stringList converts a TOML array whose elements must all be strings.
func stringList(v []any) ([]string, error) {
	out := make([]string, len(v))
	for i, e := range v {
		s, ok := e.(string)
		if !ok {
			return nil, subKey(fmt.Sprintf("[%d]", i), fmt.Errorf("%s is not a string (write it in double quotes)", literal(e)))
		}
		out[i] = s
	}
	return out, nil
}

func envKind[T any](field func(*T) *map[string]string) kind[T] {
	return kind[T]{
		typ: "table of strings",
		set: func(t *T, v any) error {
			tbl, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf(`%s is not a table (write e.g. env = { EDITOR = "vi" })`, literal(v))
			}
			// Copy before writing: the map may be the one [defaults] set.
			env := maps.Clone(*field(t))
			if env == nil {
				env = make(map[string]string, len(tbl))
			}
			for name, val := range tbl {
				s, ok := val.(string)
				if !ok {
					return subKey("."+joinKey("", name), fmt.Errorf("%s is not a string (environment values are strings: write it in double quotes)", literal(val)))
				}
				env[name] = s
			}
			*field(t) = env
			return nil
		},
		check: func(t *T) error {
			for _, name := range slices.Sorted(maps.Keys(*field(t))) {
				if !isEnvName(name) {
					return subKey("."+joinKey("", name), errors.New("is not a variable name (use letters, digits and _, not starting with a digit)"))
				}
				if strings.ContainsRune((*field(t))[name], 0) {
					return subKey("."+joinKey("", name), errors.New("contains a NUL byte, which no environment can hold"))
				}
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

func isEnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return s != ""
}

func patternsKind[T any](field func(*T) *[]string) kind[T] {
	return kind[T]{
		typ: "array of strings",
		set: func(t *T, v any) error {
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf(`%s is not an array of patterns (write e.g. ["node_modules", "*.log"])`, literal(v))
			}
			patterns, err := stringList(list)
			*field(t) = patterns
			return err
		},
		check: func(t *T) error {
			for i, pat := range *field(t) {
				// The snapshot package's own parser, so the config accepts
				// exactly what snapshots will use.
				if _, err := snapshot.CompileExclude([]string{pat}); pat == "" || err != nil {
					return subKey(fmt.Sprintf("[%d]", i), fmt.Errorf("%s is not a pattern (gitignore style: *.log, node_modules/, /build, **/cache, !keep)", literal(pat)))
				}
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

func snapshotKind[T any](field func(*T) *SnapshotPolicy) kind[T] {
	return kind[T]{
		typ: "string",
		set: func(t *T, v any) error {
			s, _ := v.(string)
			*field(t) = SnapshotPolicy(s)
			if !slices.Contains(snapshotPolicies, *field(t)) {
				return fmt.Errorf("%s is not a snapshot policy (write one of %s)", literal(v), quoteAll(snapshotPolicies))
			}
			return nil
		},
		check: func(t *T) error {
			if !slices.Contains(snapshotPolicies, *field(t)) {
				return fmt.Errorf("%q is not a snapshot policy (write one of %s)", *field(t), quoteAll(snapshotPolicies))
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

func restoreKind[T any](field func(*T) *RestorePolicy) kind[T] {
	return kind[T]{
		typ: `bool or "replace"`,
		set: func(t *T, v any) error {
			switch v {
			case false:
				*field(t) = RestoreOff
			case true:
				*field(t) = RestoreIfEmpty
			case "replace":
				*field(t) = RestoreReplace
			case "true", "false":
				return fmt.Errorf(`%s is a string (write %s without quotes)`, literal(v), v)
			default:
				return fmt.Errorf(`%s is not a restore policy (write false, true or "replace")`, literal(v))
			}
			return nil
		},
		check: func(t *T) error {
			if *field(t) > RestoreReplace {
				return fmt.Errorf(`%v is not a restore policy (write false, true or "replace")`, *field(t))
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

// Checks for string options: each returns the normalised value.

func checkName(s string) (string, error) {
	switch {
	case s == "":
		return s, errors.New(`is missing (every [[sandbox]] needs a name, e.g. name = "build")`)
	case len(s) > 64 || !isNameChar(rune(s[0]), true) || strings.ContainsFunc(s, func(r rune) bool { return !isNameChar(r, false) }):
		return s, fmt.Errorf("%s cannot name a directory (use at most 64 letters, digits, \".\", \"_\" and \"-\", starting with a letter or digit)", literal(s))
	}
	return s, nil
}

func isNameChar(r rune, first bool) bool {
	alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	return alnum || !first && (r == '.' || r == '_' || r == '-')
}

func checkProvider(reg providers.Registry, s string) error {
	if _, ok := reg.Lookup(s); !ok {
		return fmt.Errorf("%s is not a provider (use one of %s)", literal(s), quoteAll(reg.Names()))
	}
	return nil
}

func checkTerm(s string) (string, error) {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return s, fmt.Errorf("%s is not a terminal type (write e.g. %q)", literal(s), providers.DefaultTerm)
	}
	return s, nil
}

func checkShell(s string) (string, error) {
	if s != "" && !filepath.IsAbs(s) {
		return s, fmt.Errorf(`%s is not an absolute path (write e.g. "/bin/bash", or "" for $SHELL)`, literal(s))
	}
	return s, nil
}

// normalizeKey checks a key like "Ctrl+B" and returns it as the UI
// compares keys (keys.NormalizeKey: "ctrl+b"), quoting it in the error.
func normalizeKey(s string) (string, error) {
	k, err := keys.NormalizeKey(s)
	if err != nil {
		return s, fmt.Errorf("%s %w", literal(s), err)
	}
	return k, nil
}
