package vt

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// RegexpPrefix starts a query that is a regular expression (Go's syntax)
// rather than plain text.
const RegexpPrefix = "re:"

// ErrEmptyQuery is Compile's answer to a query with nothing to look for.
var ErrEmptyQuery = errors.New("the search query is empty: type what to look for")

var errInvalidQuery = errors.New("the search query is not valid UTF-8: type it again")

// Matcher is a compiled search query, shared by the scrollback search of
// one pane and the search across panes so both find the same lines. A
// query is plain text, or a regular expression after "re:"; either is
// case-insensitive unless it holds an upper-case letter (smart case). A
// Matcher is immutable and safe for concurrent use.
type Matcher struct {
	query string
	re    *regexp.Regexp
	lit   string // a plain query: lower case already when fold is set
	fold  bool   // ASCII case folding
	// anchor is the byte of lit that is scanned for first (the rarest,
	// by a rough table of what terminals show), lo and up its two cases.
	anchor int
	lo, up byte
	// need is the lineMask every line holding a plain match has: most
	// lines are ruled out by it without reading their text.
	need uint64
	// blockNeed is the byte pairs every match holds, as a cold
	// scrollback block records them (sbcold.go): a block without them
	// is not unpacked. nil: none known.
	blockNeed *blockPairs
}

// Compile parses a query. A plain query with no upper-case letter folds
// case (ASCII letters by a byte compare; other letters through a regular
// expression); one with a capital matches as typed. "re:PATTERN" compiles
// PATTERN, adding (?i) unless it holds a capital outside escapes.
func Compile(query string) (*Matcher, error) {
	if !utf8.ValidString(query) {
		return nil, errInvalidQuery // screens hold valid UTF-8 only: it could match nothing
	}
	m := &Matcher{query: query}
	if pat, ok := strings.CutPrefix(query, RegexpPrefix); ok {
		if pat == "" {
			return nil, fmt.Errorf("%w after %q", ErrEmptyQuery, RegexpPrefix)
		}
		if !patternHasUpper(pat) {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w (fix the expression, or drop %q to search for the text)", query, err, RegexpPrefix)
		}
		m.re = re
		m.need, m.blockNeed = regexpNeed(pat)
		return m, nil
	}
	if query == "" {
		return nil, ErrEmptyQuery
	}
	fold := !hasUpper(query)
	if fold && !isASCII(query) {
		// Unicode case folding is the regexp package's business.
		m.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(query))
		return m, nil
	}
	m.lit, m.fold = query, fold && hasASCIILetter(query)
	m.anchor, m.need = rarest(query), lineMask(query)
	if len(query) > 1 {
		m.blockNeed = new(blockPairs)
		m.blockNeed.add(query)
	}
	m.lo, m.up = query[m.anchor], query[m.anchor]
	if m.fold && m.lo >= 'a' && m.lo <= 'z' {
		m.up = m.lo - 'a' + 'A'
	}
	return m, nil
}

// Query returns the query as given to Compile.
func (m *Matcher) Query() string { return m.query }

// Index returns the bytes [start, end) of the first match in s, or -1, -1.
// A plain query allocates nothing.
func (m *Matcher) Index(s string) (start, end int) {
	switch {
	case m.re != nil:
		if !m.re.MatchString(s) { // MatchString allocates nothing; most lines fail here
			return -1, -1
		}
		loc := m.re.FindStringIndex(s)
		return loc[0], loc[1]
	}
	if i := m.indexLit(s); i >= 0 {
		return i, i + len(m.lit)
	}
	return -1, -1
}

// indexLit finds lit in s, ignoring ASCII case when fold is set: it scans
// for the anchor byte (in either case) with IndexByte, which is
// vectorised, then compares the rest. On short lines this beats
// strings.Index, which compares at every offset of a line under 64 bytes.
func (m *Matcher) indexLit(s string) int {
	n, a := len(m.lit), m.anchor
	last := len(s) - n + a // the last place the anchor can be
	for i := a; i <= last; {
		j := indexEither(s[i:last+1], m.lo, m.up)
		if j < 0 {
			return -1
		}
		i += j
		if w := s[i-a : i-a+n]; m.fold && equalFoldASCII(w, m.lit) || !m.fold && w == m.lit {
			return i - a
		}
		i++
	}
	return -1
}

// indexEither returns the first index of lo or up in s, or -1.
func indexEither(s string, lo, up byte) int {
	i := strings.IndexByte(s, lo)
	if lo == up {
		return i
	}
	t := s
	if i >= 0 {
		t = s[:i] // up only counts before the first lo
	}
	if j := strings.IndexByte(t, up); j >= 0 {
		return j
	}
	return i
}

// equalFoldASCII reports whether s equals lower, which is lower case,
// folding ASCII letters of s.
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// common lists the bytes terminals show most, most common first; a byte
// not in it counts as rarer than all of them.
const common = " etaoinsrlhdcumpfgbywv.k-/=_:0123456789,x()[]\"'qjz|>"

// rarest returns the index of the byte of q least likely to be common.
func rarest(q string) int {
	best, bestRank := 0, len(common)+1
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		rank := 0
		if k := strings.IndexByte(common, c); k >= 0 {
			rank = len(common) - k
		}
		if rank < bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// patternHasUpper reports whether a regular expression holds an
// upper-case letter that stands for itself: not an escape's letter (\S,
// \W, \D, \B, \PL, \p{Greek}) nor a group's name ((?P<Name>...), (?<Name>...)).
func patternHasUpper(pat string) bool {
	for i := 0; i < len(pat); {
		r, n := utf8.DecodeRuneInString(pat[i:])
		switch {
		case r == '\\':
			i += n
			if i >= len(pat) {
				return false
			}
			e, en := utf8.DecodeRuneInString(pat[i:])
			i += en
			if (e == 'p' || e == 'P') && i < len(pat) && pat[i] == '{' {
				if k := strings.IndexByte(pat[i:], '}'); k >= 0 {
					i += k + 1
				}
			}
			continue
		case strings.HasPrefix(pat[i:], "(?P<") || strings.HasPrefix(pat[i:], "(?<"):
			if k := strings.IndexByte(pat[i:], '>'); k >= 0 {
				i += k + 1
				continue
			}
		case unicode.IsUpper(r):
			return true
		}
		i += n
	}
	return false
}

// lineMask is a 64-bit summary of the byte pairs in s, ASCII letters
// folded: a line can hold a plain query only if its mask has every bit
// of the query's. Pairs rule out far more lines than single letters
// would (every letter of "runtime error" is on most lines of a log, all
// of its pairs on few). It runs for every line that scrolls off, so a
// pair's bit is two table loads and an add.
func lineMask(s string) uint64 {
	if len(s) < 2 {
		return 0
	}
	var m uint64
	p := pairHash[s[0]] * 5
	for i := 1; i < len(s); i++ {
		h := pairHash[s[i]]
		m |= 1 << ((p + h) & 63)
		p = h * 5
	}
	return m
}

func pairBit(a, b byte) uint64 { return 1 << ((pairHash[a]*5 + pairHash[b]) & 63) }

// pairHash is a 6-bit hash of each byte, the same for both cases of a
// letter.
var pairHash = func() (t [256]uint8) {
	for c := range 256 {
		f := uint32(c)
		if c >= 'A' && c <= 'Z' {
			f += 'a' - 'A'
		}
		t[c] = uint8(f * 0x9E3779B1 >> 26)
	}
	return t
}()

// regexpNeed is the lineMask bits every line matching pat has, and the
// same pairs as a cold scrollback block records them (nil when none is
// known): those of the byte pairs of the literals any match must hold.
// It finds few (an alternation, a repeat that may be empty, a class give
// none), never a wrong one.
func regexpNeed(pat string) (uint64, *blockPairs) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return 0, nil
	}
	n := need(re.Simplify())
	if n.block == (blockPairs{}) {
		return n.mask, nil
	}
	return n.mask, &n.block
}

// pairNeed is the byte pairs a match holds, at both resolutions.
type pairNeed struct {
	mask  uint64
	block blockPairs
}

func (n *pairNeed) or(o pairNeed) {
	n.mask |= o.mask
	for i := range n.block {
		n.block[i] |= o.block[i]
	}
}

func (n *pairNeed) and(o pairNeed) {
	n.mask &= o.mask
	for i := range n.block {
		n.block[i] &= o.block[i]
	}
}

func need(re *syntax.Regexp) (n pairNeed) {
	switch re.Op {
	case syntax.OpLiteral:
		return literalNeed(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			n.or(need(sub))
		}
	case syntax.OpCapture, syntax.OpPlus:
		return need(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return need(re.Sub[0])
		}
	case syntax.OpAlternate:
		n.mask = ^uint64(0)
		for i := range n.block {
			n.block[i] = ^uint64(0)
		}
		for _, sub := range re.Sub {
			n.and(need(sub))
		}
	}
	return n
}

// literalNeed is the pairs of ASCII runes in a literal. With fold, a
// rune that folds to a non-ASCII one (k to the Kelvin sign, s to the
// long s) gives no pair: the line may hold the other.
func literalNeed(runes []rune, fold bool) (n pairNeed) {
	for i := 1; i < len(runes); i++ {
		if a, b := runes[i-1], runes[i]; pairSafe(a, fold) && pairSafe(b, fold) {
			n.mask |= pairBit(byte(a), byte(b))
			n.block.set(byte(a), byte(b))
		}
	}
	return n
}

func pairSafe(r rune, fold bool) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}
