package main

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
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Err.Error())
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
	errs  []*configError
}

func (p *problems) add(key string, err error) {
	if sub, ok := err.(*subKeyError); ok {
		key, err = key+sub.key, sub.err
	}
	for _, e := range p.errs {
		if e.Key == key && e.Err.Error() == err.Error() {
			return // one [defaults] value, inherited by many sandboxes
		}
	}
	p.errs = append(p.errs, &configError{File: p.file, Line: p.lines.find(key), Key: key, Err: err})
}

// err returns nil, the one error, or all of them joined, in file order.
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
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// literal shows a TOML value as a config file would spell it, shortened.
func literal(v any) string {
	switch v := v.(type) {
	case string:
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		return strconv.Quote(v)
	case []any:
		if len(v) > 4 {
			return "[" + literal(v[0]) + ", …]"
		}
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = literal(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprint(v)
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
