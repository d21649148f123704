package status

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// RuleSpec is a screen rule as the config writes it: a [[rule]] table.
type RuleSpec struct {
	Match     string   // a regular expression over the last Rows rows
	Rows      int      // how many rows, ending at the last non-blank one (0: DefaultRuleRows)
	State     string   // what a match means
	Reason    string   // why, with $1 or ${name} taken from the match
	Sandboxes []string // only panes of these sandboxes (names or path.Match patterns); empty: all
	Command   string   // only panes whose command line matches this expression; empty: all
	Hold      time.Duration
}

// DefaultRuleRows is how many rows a rule reads when it does not say.
const DefaultRuleRows = 5

// MaxRuleRows bounds a rule's rows.
const MaxRuleRows = 200

// Rule is a compiled screen rule.
type Rule struct {
	match     *regexp.Regexp
	rows      int
	state     State
	reason    string
	sandboxes []string
	command   *regexp.Regexp
	hold      time.Duration
}

// RuleError says which field of a rule is wrong, for the config to place.
type RuleError struct {
	Field string
	Err   error
}

func (e *RuleError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *RuleError) Unwrap() error { return e.Err }

// Compile checks a rule and compiles its expressions.
func Compile(spec RuleSpec) (*Rule, error) {
	r := &Rule{rows: spec.Rows, reason: spec.Reason, sandboxes: spec.Sandboxes, hold: spec.Hold}
	var err error
	if spec.Match == "" {
		return nil, &RuleError{"match", fmt.Errorf("is required: a regular expression the screen's last rows must match")}
	}
	if r.match, err = regexp.Compile(spec.Match); err != nil {
		return nil, &RuleError{"match", fmt.Errorf("is not a regular expression: %w", err)}
	}
	if r.state, err = Parse(spec.State); err != nil || r.state == Starting || r.state == Closing || r.state == Disconnected {
		return nil, &RuleError{"state", fmt.Errorf("%q: a rule may say waiting, working, idle, done or failed", spec.State)}
	}
	switch {
	case r.rows == 0:
		r.rows = DefaultRuleRows
	case r.rows < 1 || r.rows > MaxRuleRows:
		return nil, &RuleError{"rows", fmt.Errorf("%d is out of range (use 1 to %d)", spec.Rows, MaxRuleRows)}
	}
	if spec.Hold < 0 {
		return nil, &RuleError{"hold", fmt.Errorf("%s is negative", spec.Hold)}
	}
	for _, pat := range spec.Sandboxes {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, &RuleError{"sandboxes", fmt.Errorf("%q is not a name pattern: %w", pat, err)}
		}
	}
	if spec.Command != "" {
		if r.command, err = regexp.Compile(spec.Command); err != nil {
			return nil, &RuleError{"command", fmt.Errorf("is not a regular expression: %w", err)}
		}
	}
	if r.reason == "" {
		r.reason = "the screen matched " + spec.Match
	}
	return r, nil
}

// Rows is how many of the screen's last rows the rule reads.
func (r *Rule) Rows() int { return r.rows }

// AppliesTo reports whether the rule watches a pane of sandbox running argv.
func (r *Rule) AppliesTo(sandbox string, argv []string) bool {
	if len(r.sandboxes) > 0 {
		ok := false
		for _, pat := range r.sandboxes {
			if m, _ := path.Match(pat, sandbox); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return r.command == nil || r.command.MatchString(strings.Join(argv, " "))
}

// ruleSet is a tracker's rules and, for each, since when it has matched.
type ruleSet struct {
	rules   []*Rule
	since   []time.Time // zero: not matching
	reasons []string
	// count is how many times each rule matched the rows last read;
	// answered, for a waiting rule the user answered, how many of those
	// matches the answer covers (-1: none). The answered question stays
	// on screen (scrolled up a row, the reply after it), so the rule
	// waits again only once a match more appears, or once every match
	// left the rows and one comes back.
	count    []int
	answered []int
}

// SetRules gives the tracker the rules that watch its pane (see AppliesTo),
// in the config's order: the first that matches and has held wins.
func (t *Tracker) SetRules(rules []*Rule) {
	n := len(rules)
	t.rules = ruleSet{rules: rules, since: make([]time.Time, n), reasons: make([]string, n),
		count: make([]int, n), answered: make([]int, n)}
	for i := range t.rules.answered {
		t.rules.answered[i] = -1
	}
}

// answer marks the waiting rules' matches on screen as answered.
func (rs *ruleSet) answer() {
	for i, r := range rs.rules {
		if r.state == Waiting && rs.count[i] > 0 {
			rs.answered[i] = rs.count[i]
			rs.since[i], rs.reasons[i] = time.Time{}, ""
		}
	}
}

// RuleRows is how many rows the tracker's rules read at most; zero when
// it has none, and the screen need not be read.
func (t *Tracker) RuleRows() int {
	n := 0
	for _, r := range t.rules.rules {
		n = max(n, r.rows)
	}
	return n
}

// Screen gives the tracker the screen's last rows (as text, oldest first,
// the last being the last non-blank row) at now.
func (t *Tracker) Screen(rows []string, now time.Time) {
	rs := &t.rules
	for i, r := range rs.rules {
		from := max(0, len(rows)-r.rows)
		text := strings.Join(rows[from:], "\n")
		m := r.match.FindStringSubmatchIndex(text)
		rs.count[i] = 0
		if m != nil {
			// Bounded: the text is at most MaxRuleRows rows.
			rs.count[i] = len(r.match.FindAllStringIndex(text, -1))
		}
		if a := rs.answered[i]; a >= 0 {
			if rs.count[i] > a || rs.count[i] == 0 {
				rs.answered[i] = -1 // a new question, or the old one gone
			} else {
				rs.answered[i] = rs.count[i] // some answered ones scrolled away
				m = nil
			}
		}
		if m == nil {
			rs.since[i], rs.reasons[i] = time.Time{}, ""
			continue
		}
		if rs.since[i].IsZero() {
			rs.since[i] = now
		}
		rs.reasons[i] = clip(string(r.match.ExpandString(nil, r.reason, text, m)))
	}
}

// claim is the first matching rule that has held.
func (rs *ruleSet) claim(now time.Time) (State, string, bool) {
	for i, r := range rs.rules {
		if s := rs.since[i]; !s.IsZero() && now.Sub(s) >= r.hold {
			return r.state, rs.reasons[i], true
		}
	}
	return "", "", false
}

// nextHold is when the next matching rule's hold runs out; zero if none.
func (rs *ruleSet) nextHold(now time.Time) time.Time {
	var next time.Time
	for i, r := range rs.rules {
		if s := rs.since[i]; !s.IsZero() {
			if at := s.Add(r.hold); at.After(now) && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
	}
	return next
}
