package config

// Bounds that keep a hostile config small to check: a config is a few KB
// written by hand, and a 200 KB one must not cost gigabytes. The TOML
// decoder recurses and copies per level of nesting, and so would anything
// walking what it returns, so the shape is checked on the raw bytes first.

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

const (
	// maxConfigSize bounds a config file; loadConfig reads no more.
	maxConfigSize = 1 << 20
	// maxConfigDepth bounds nesting: table header parts, dotted key parts,
	// arrays and inline tables, counted together from the document root.
	maxConfigDepth = 64
	// maxQuoted bounds, in runes, a value, key or decoder message quoted in
	// an error.
	maxQuoted = 80
	// maxMessage bounds, in runes, the message of one config error.
	maxMessage = 600
	// maxProblems bounds the errors one check lists; the rest are counted.
	maxProblems = 100
)

// checkConfigShape refuses a config larger than maxConfigSize or nested
// deeper than maxConfigDepth, at the line where it goes over, before any
// of it is decoded.
func checkConfigShape(name string, data []byte) error {
	if len(data) > maxConfigSize {
		return &configError{File: name, Line: bytes.Count(data[:maxConfigSize], []byte("\n")) + 1,
			Err: errors.New("the config is larger than 1 MiB, the most sandmux reads (it goes past that on this line); shorten it")}
	}
	sc := &shapeScanner{src: data, line: 1, wantKey: true}
	if sc.run() {
		return nil
	}
	return &configError{File: name, Line: sc.line,
		Err: fmt.Errorf("nested more than %d deep (tables, dotted keys, arrays and inline tables together); flatten it", maxConfigDepth)}
}

// shapeScanner measures nesting the way TOML nests, in one pass with no
// allocation per level: brackets inside any string form or a comment do
// not count, and a table header at the top level is not an array. It
// checks nothing else; the decoder does that on what passes.
type shapeScanner struct {
	src     []byte
	pos     int
	line    int
	base    int     // depth of the current [table]: its header's parts
	open    []frame // brackets not closed yet, at most maxConfigDepth
	cur     int     // depth of the value about to start
	wantKey bool    // a key comes next: at a line start, or in an inline table
}

type frame struct {
	brace bool // an inline table, rather than an array
	depth int
}

// container is the depth of what holds the next key or element.
func (sc *shapeScanner) container() int {
	if n := len(sc.open); n > 0 {
		return sc.open[n-1].depth
	}
	return sc.base
}

// run reports whether the document stays within maxConfigDepth; when it
// does not, sc.line is where it goes over.
func (sc *shapeScanner) run() bool {
	for sc.pos < len(sc.src) {
		c := sc.src[sc.pos]
		ok := true
		switch {
		case c == '\n':
			sc.line++
			sc.pos++
			if len(sc.open) == 0 {
				sc.wantKey = true
			}
		case c == ' ' || c == '\t' || c == '\r':
			sc.pos++
		case c == '#':
			sc.comment()
		case sc.wantKey && len(sc.open) == 0 && c == '[':
			ok = sc.header()
		case sc.wantKey:
			ok = sc.key()
		default:
			ok = sc.value(c)
		}
		if !ok {
			return false
		}
	}
	return true
}

func (sc *shapeScanner) comment() {
	if i := bytes.IndexByte(sc.src[sc.pos:], '\n'); i >= 0 {
		sc.pos += i
	} else {
		sc.pos = len(sc.src)
	}
}

// header passes a [table] or [[array]] header and makes its parts the
// depth of the keys below it.
func (sc *shapeScanner) header() bool {
	sc.pos++
	parts := 1
	for sc.pos < len(sc.src) {
		switch c := sc.src[sc.pos]; c {
		case '"', '\'':
			sc.str(c)
			continue
		case '.':
			parts++
		case ']', '\n':
			if c == ']' { // A second ']' is passed as a value byte.
				sc.pos++
			}
			sc.wantKey, sc.base = false, parts
			return parts <= maxConfigDepth
		}
		sc.pos++
	}
	return parts <= maxConfigDepth
}

// key passes a (dotted) key up to its '=', and sets the depth of its
// value. Anything else ends it for value to look at.
func (sc *shapeScanner) key() bool {
	parts := 1
	for sc.pos < len(sc.src) {
		switch c := sc.src[sc.pos]; c {
		case '"', '\'':
			sc.str(c)
			continue
		case '.':
			parts++
		case '\n':
			if len(sc.open) == 0 {
				return true // A top-level key ends at its line; run takes the newline.
			}
			sc.line++
		case '#':
			sc.comment()
			continue
		case '=':
			sc.pos++
			sc.wantKey, sc.cur = false, sc.container()+parts
			return sc.cur <= maxConfigDepth
		case '[', ']', '{', '}', ',':
			sc.wantKey = false
			return true
		}
		sc.pos++
	}
	return true
}

// value looks at one byte of a value: a string, a bracket, a comma.
func (sc *shapeScanner) value(c byte) bool {
	switch c {
	case '"', '\'':
		sc.str(c)
		return true
	case '[', '{':
		d := sc.cur + 1
		if d > maxConfigDepth {
			return false
		}
		sc.open = append(sc.open, frame{brace: c == '{', depth: d})
		sc.cur, sc.wantKey = d, c == '{'
	case ']', '}':
		if n := len(sc.open); n > 0 {
			sc.open = sc.open[:n-1]
		}
		sc.cur = sc.container()
	case ',':
		if n := len(sc.open); n > 0 && sc.open[n-1].brace {
			sc.wantKey = true
		}
		sc.cur = sc.container()
	}
	sc.pos++
	return true
}

// str passes a string in any of TOML's four forms, counting its lines.
func (sc *shapeScanner) str(q byte) {
	delim := []byte{q, q, q}
	if bytes.HasPrefix(sc.src[sc.pos:], delim) {
		sc.pos += 3
		for sc.pos < len(sc.src) {
			switch c := sc.src[sc.pos]; {
			case bytes.HasPrefix(sc.src[sc.pos:], delim):
				sc.pos += 3
				for i := 0; i < 2 && sc.pos < len(sc.src) && sc.src[sc.pos] == q; i++ {
					sc.pos++ // Up to two quotes may end the content.
				}
				return
			case c == '\n':
				sc.line++
			case c == '\\' && q == '"' && sc.pos+1 < len(sc.src):
				sc.pos++
				if sc.src[sc.pos] == '\n' {
					sc.line++
				}
			}
			sc.pos++
		}
		return
	}
	sc.pos++
	for sc.pos < len(sc.src) {
		switch c := sc.src[sc.pos]; {
		case c == q:
			sc.pos++
			return
		case c == '\n':
			return // Unterminated: the decoder says so.
		case c == '\\' && q == '"' && sc.pos+1 < len(sc.src) && sc.src[sc.pos+1] != '\n':
			sc.pos++
		}
		sc.pos++
	}
}

// shorten cuts s to at most n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// errTooMany is the last error of a check that found more than
// maxProblems.
func errTooMany(n int) error {
	return fmt.Errorf("%d more problems not shown; fix these first", n)
}
