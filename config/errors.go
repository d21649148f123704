package config

// How config mistakes are collected and shown: file, line, key, and what to
// write instead.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/sandmux/sandmux/providers"
)

// configError is one mistake in a config: at a file, a line (0 when the key
// was not written in the file), and a key as TOML paths spell it, with
// arrays of tables indexed from 0 ("sandbox[1].stop_grace").
type configError struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *configError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(shorten(e.Key, maxQuoted) + ": ")
	}
	// Each part quotes values shortened; this bounds what a provider's
	// check says too, whatever the input.
	b.WriteString(shorten(e.Err.Error(), maxMessage))
	return b.String()
}

func (e *configError) Unwrap() error { return e.Err }

// subKeyError is a kind's error about a part of a value, such as one
// element of an array; key is appended to the option's key.
type subKeyError struct {
	key string
	err error
}

func subKey(key string, err error) error { return &subKeyError{key, err} }
func (e *subKeyError) Error() string     { return e.err.Error() }
func (e *subKeyError) Unwrap() error     { return e.err }

// problems collects what is wrong with a config, so that one run reports
// every mistake, each at its file, line and key.
type problems struct {
	file  string
	lines keyLines
	reg   providers.Registry
	errs  []*configError
	seen  map[string]bool // key and message of each error in errs
	// skip are the keys, and the tables, whose errors are said already.
	skip map[string]bool
}

// skipDecoded makes the keys with errors so far, and every key under
// them, take no more.
func (p *problems) skipDecoded() {
	p.skip = map[string]bool{}
	for _, e := range p.errs {
		p.skip[e.Key] = true
	}
}

// skipped reports whether key, or a table it is in, is to be skipped.
func (p *problems) skipped(key string) bool {
	for k := key; k != ""; {
		if p.skip[k] {
			return true
		}
		i := strings.LastIndexAny(k, ".[")
		if i < 0 {
			return false
		}
		k = k[:i]
	}
	return false
}

func (p *problems) add(key string, err error) {
	if sub, ok := err.(*subKeyError); ok {
		key, err = key+sub.key, sub.err
	}
	if p.skipped(key) {
		return
	}
	// One [defaults] value, inherited by many sandboxes, is one mistake. A
	// set rather than a scan of errs keeps a config of many mistakes
	// linear.
	id := key + "\x00" + err.Error()
	if p.seen[id] {
		return
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[id] = true
	p.errs = append(p.errs, &configError{File: p.file, Line: p.lines.find(key), Key: key, Err: err})
}

// err returns nil, the one error, or the first maxProblems in file order
// joined, followed by how many more there are.
func (p *problems) err() error {
	slices.SortStableFunc(p.errs, func(a, b *configError) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.Key, b.Key))
	})
	switch len(p.errs) {
	case 0:
		return nil
	case 1:
		return p.errs[0]
	}
	shown := p.errs[:min(len(p.errs), maxProblems)]
	errs := make([]error, len(shown), len(shown)+1)
	for i, e := range shown {
		errs[i] = e
	}
	if more := len(p.errs) - len(shown); more > 0 {
		errs = append(errs, &configError{File: p.file, Err: errTooMany(more)})
	}
	return errors.Join(errs...)
}

// literal shows a TOML value as a config file would spell it, shortened
// to at most maxQuoted runes however long or deep the value.
func literal(v any) string { return shorten(literalAt(v, 0), maxQuoted) }

// literalAt spells v at depth levels of arrays; below the third level an
// array is only hinted at, so the result stays small.
func literalAt(v any, depth int) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(shorten(v, maxQuoted/2))
	case []any:
		switch {
		case len(v) == 0:
			return "[]"
		case depth >= 3:
			return "[…]"
		case len(v) > 4:
			return "[" + literalAt(v[0], depth+1) + ", …]"
		}
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = literalAt(e, depth+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return shorten(fmt.Sprint(v), maxQuoted)
}

func quoteAll[S ~string](list []S) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(string(s))
	}
	return strings.Join(q, ", ")
}

// joinKey appends one key to a path, quoting it as TOML would need.
func joinKey(at, key string) string {
	k := toml.Key{key}.String()
	if at == "" {
		return k
	}
	return at + "." + k
}
