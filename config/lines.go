package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// keyLines maps each key written in a TOML document, as errors show it
// ("sandbox[1].env.FOO"), to the line it was written on.
//
// toml.MetaData cannot say this: it keeps one position per key without the
// array index, so every [[sandbox]] would point at the last one, and it does
// not export positions. A small scanner fills the gap. It runs only on
// documents toml has accepted, so it skips values without checking them.
type keyLines map[string]int

func (l keyLines) has(key string) bool { _, ok := l[key]; return ok }

// find returns the line of key, or of its nearest written parent (a missing
// name is reported at its [[sandbox]]), or 0.
func (l keyLines) find(key string) int {
	for key != "" {
		if n, ok := l[key]; ok {
			return n
		}
		key = key[:max(strings.LastIndexAny(key, ".["), 0)]
	}
	return 0
}

func scanKeyLines(data []byte) keyLines {
	sc := &keyScanner{src: data, line: 1, lines: keyLines{}, arrays: map[string]int{}}
	sc.document()
	return sc.lines
}

type keyScanner struct {
	src    []byte
	pos    int
	line   int
	lines  keyLines
	arrays map[string]int // elements so far of each array of tables, by path
}

func (sc *keyScanner) eof() bool        { return sc.pos >= len(sc.src) }
func (sc *keyScanner) at(s string) bool { return bytes.HasPrefix(sc.src[sc.pos:], []byte(s)) }
func (sc *keyScanner) atAny(set string) bool {
	return !sc.eof() && strings.IndexByte(set, sc.src[sc.pos]) >= 0
}

func (sc *keyScanner) advance(n int) {
	for ; n > 0 && !sc.eof(); n-- {
		if sc.src[sc.pos] == '\n' {
			sc.line++
		}
		sc.pos++
	}
}

func (sc *keyScanner) record(key string) {
	if !sc.lines.has(key) {
		sc.lines[key] = sc.line
	}
}

// skip passes over blanks and comments, and line ends if newlines is set.
func (sc *keyScanner) skip(newlines bool) {
	for !sc.eof() {
		switch {
		case sc.atAny(" \t\r") || newlines && sc.atAny("\n"):
			sc.advance(1)
		case sc.atAny("#"):
			for !sc.eof() && !sc.atAny("\n") {
				sc.advance(1)
			}
		default:
			return
		}
	}
}

func (sc *keyScanner) document() {
	table := ""
	for sc.skip(true); !sc.eof(); sc.skip(true) {
		start := sc.pos
		switch {
		case sc.at("[["):
			sc.advance(2)
			table = sc.header(sc.key(), true)
		case sc.at("["):
			sc.advance(1)
			table = sc.header(sc.key(), false)
		default:
			sc.keyValue(table)
		}
		for !sc.eof() && !sc.atAny("\n") { // "]]", blanks, a comment
			sc.advance(1)
		}
		if sc.pos == start {
			sc.advance(1) // never stall, whatever the input
		}
	}
}

// header records a [table] or [[array]] header and returns its path.
func (sc *keyScanner) header(key []string, array bool) string {
	p := ""
	for i, k := range key {
		p = joinKey(p, k)
		if array && i == len(key)-1 {
			sc.record(p)
			sc.arrays[p]++
			p = fmt.Sprintf("%s[%d]", p, sc.arrays[p]-1)
		} else if n, ok := sc.arrays[p]; ok { // [sandbox.env] after [[sandbox]]
			p = fmt.Sprintf("%s[%d]", p, n-1)
		}
		sc.record(p)
	}
	return p
}

func (sc *keyScanner) keyValue(table string) {
	p := table
	for _, k := range sc.key() {
		p = joinKey(p, k)
		sc.record(p)
	}
	sc.skip(false)
	if sc.at("=") {
		sc.advance(1)
		sc.value(p)
	}
}

// key reads a dotted key: bare, "basic" or 'literal' parts.
func (sc *keyScanner) key() []string {
	var parts []string
	for {
		sc.skip(false)
		start := sc.pos
		switch {
		case sc.at(`"`):
			sc.advance(1)
			sc.untilLine('"', true)
			raw := string(sc.src[start:sc.pos])
			s, err := strconv.Unquote(raw)
			if err != nil { // a TOML-only escape such as \e: close enough for finding a line
				s = strings.Trim(raw, `"`)
			}
			parts = append(parts, s)
		case sc.at("'"):
			sc.advance(1)
			sc.untilLine('\'', false)
			parts = append(parts, strings.Trim(string(sc.src[start:sc.pos]), "'"))
		default:
			for sc.atAny("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") {
				sc.advance(1)
			}
			if sc.pos == start {
				return parts
			}
			parts = append(parts, string(sc.src[start:sc.pos]))
		}
		sc.skip(false)
		if !sc.at(".") {
			return parts
		}
		sc.advance(1)
	}
}

// value skips the value of key p, recording the keys inside it: an
// array's elements and an inline table's keys.
func (sc *keyScanner) value(p string) {
	sc.skip(false)
	switch {
	case sc.at(`"""`), sc.at("'''"):
		sc.multiline()
	case sc.at(`"`):
		sc.advance(1)
		sc.untilLine('"', true)
	case sc.at("'"):
		sc.advance(1)
		sc.untilLine('\'', false)
	case sc.at("["):
		sc.advance(1)
		sc.array(p)
	case sc.at("{"):
		sc.advance(1)
		sc.inlineTable(p)
	default: // number, bool, date: up to whatever ends a value
		for !sc.eof() && !sc.atAny(",]}#\n") {
			sc.advance(1)
		}
	}
}

// multiline skips a multi-line string, from its opening delimiter.
func (sc *keyScanner) multiline() {
	delim := string(sc.src[sc.pos : sc.pos+3])
	sc.advance(3)
	for !sc.eof() && !sc.at(delim) {
		if delim == `"""` && sc.at(`\`) {
			sc.advance(1)
		}
		sc.advance(1)
	}
	sc.advance(3)
	for range 2 { // a closing delimiter may follow one or two quotes
		if sc.at(delim[:1]) {
			sc.advance(1)
		}
	}
}

// array records the elements of the array at p, past its '[', as
// p[0], p[1]…, through its ']'.
func (sc *keyScanner) array(p string) {
	n := 0
	sc.items("]", func() {
		elem := fmt.Sprintf("%s[%d]", p, n)
		n++
		sc.record(elem)
		sc.value(elem)
	})
}

// inlineTable records the keys of the inline table at p, past its '{',
// through its '}'.
func (sc *keyScanner) inlineTable(p string) {
	sc.items("}", func() { sc.keyValue(p) })
}

// items steps over the comma-separated items of an array or an inline
// table, past its opening bracket, through close: item scans each one,
// and a character it cannot scan is skipped, so a malformed item never
// stops the scan.
func (sc *keyScanner) items(close string, item func()) {
	for {
		sc.skip(true)
		switch {
		case sc.eof():
			return
		case sc.at(close):
			sc.advance(1)
			return
		case sc.at(","):
			sc.advance(1)
		default:
			start := sc.pos
			item()
			if sc.pos == start {
				sc.advance(1)
			}
		}
	}
}

// untilLine passes the rest of a one-line string, through its closing quote.
func (sc *keyScanner) untilLine(quote byte, escapes bool) {
	for !sc.eof() && !sc.atAny("\n") {
		c := sc.src[sc.pos]
		sc.advance(1)
		switch {
		case c == quote:
			return
		case c == '\\' && escapes && !sc.atAny("\n"):
			sc.advance(1)
		}
	}
}
