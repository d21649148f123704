package config

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/sandmux/sandmux/status"
)

// RuleConfig is one [[rule]] table as written: a screen rule that says
// what a pane's last rows mean. Package status compiles it.
type RuleConfig struct {
	Match     string
	Rows      int
	State     string
	Reason    string
	Sandboxes []string
	Command   string
	Hold      time.Duration
}

var ruleOptions = []option[RuleConfig]{
	{table: "rule", key: "match",
		help: `A regular expression (Go's syntax) over the pane's last rows, joined with newlines; (?m) makes ^ and $ match at each row.`,
		kind: stringKind(func(r *RuleConfig) *string { return &r.Match }, nil)},
	{table: "rule", key: "rows", def: int64(status.DefaultRuleRows),
		help: "How many rows the rule reads, ending at the last row that is not blank.",
		kind: intKind(func(r *RuleConfig) *int { return &r.Rows }, 1, status.MaxRuleRows)},
	{table: "rule", key: "state",
		help: `What a match means: "waiting", "working", "idle", "done" or "failed".`,
		kind: stringKind(func(r *RuleConfig) *string { return &r.State }, nil)},
	{table: "rule", key: "reason", def: "",
		help: "Why, as the pane's title and the session list say it; $1 or ${name} are the match's groups.",
		kind: stringKind(func(r *RuleConfig) *string { return &r.Reason }, nil)},
	{table: "rule", key: "sandboxes", def: []any{},
		help: `Only panes of these sandboxes, by name or pattern ("agent-*"); empty: every pane.`,
		kind: namesKind(func(r *RuleConfig) *[]string { return &r.Sandboxes })},
	{table: "rule", key: "command", def: "",
		help: "Only panes whose command line (its words joined by spaces) matches this regular expression; empty: every pane.",
		kind: stringKind(func(r *RuleConfig) *string { return &r.Command }, nil)},
	{table: "rule", key: "hold", def: "0s",
		help: "How long the rule must match before it counts, so that a line scrolling past does not.",
		kind: durationKind(func(r *RuleConfig) *time.Duration { return &r.Hold }, 0, time.Hour)},
}

// maxRules bounds the [[rule]] tables: each is matched on every changed
// screen.
const maxRules = 64

// namesKind is an array of sandbox names or path.Match patterns.
func namesKind[T any](field func(*T) *[]string) kind[T] {
	return stringsKind(field, `["agent-*", "web"]`, func(n string) error {
		if _, err := path.Match(n, ""); n == "" || err != nil {
			return fmt.Errorf("%s is not a name or pattern (write e.g. \"agent-*\")", literal(n))
		}
		return nil
	})
}

// stringsKind is an array of strings, each checked by check; example
// shows one in the error for another type.
func stringsKind[T any](field func(*T) *[]string, example string, check func(string) error) kind[T] {
	return kind[T]{
		typ: "array of strings",
		set: func(t *T, v any) error {
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s is not an array (write e.g. %s)", literal(v), example)
			}
			names, err := stringList(list)
			*field(t) = names
			return err
		},
		check: func(t *T) error {
			for i, n := range *field(t) {
				if err := check(n); err != nil {
					return subKey(fmt.Sprintf("[%d]", i), err)
				}
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

// decodeRules decodes and compiles the [[rule]] tables, in order: the
// first rule that matches (and has held) is the one that counts.
func (p *problems) decodeRules(doc map[string]any) []*status.Rule {
	tables := p.arrayTables(doc, "rule")
	if len(tables) > maxRules {
		p.add("rule", fmt.Errorf("has %d tables: at most %d rules are read (merge some with |)", len(tables), maxRules))
		return nil
	}
	var rules []*status.Rule
	for i, t := range tables {
		at, before := fmt.Sprintf("rule[%d]", i), len(p.errs)
		rc := defaultsOf(ruleOptions)
		applyOptions(p, ruleOptions, "rule", at, t, &rc)
		for _, o := range ruleOptions {
			checkOption(p, joinKey(at, o.key), o, &rc)
		}
		for _, key := range []string{"match", "state"} {
			if _, ok := t[key]; !ok {
				p.add(at, fmt.Errorf("has no %s (a rule needs match and state)", key))
			}
		}
		if len(p.errs) > before {
			continue // compiling would only echo those
		}
		r, err := status.Compile(status.RuleSpec{Match: rc.Match, Rows: rc.Rows, State: rc.State, Reason: rc.Reason,
			Sandboxes: rc.Sandboxes, Command: rc.Command, Hold: rc.Hold})
		var re *status.RuleError
		switch {
		case errors.As(err, &re):
			p.add(joinKey(at, re.Field), re.Err)
		case err != nil:
			p.add(at, err)
		default:
			rules = append(rules, r)
		}
	}
	return rules
}

// notifyWays are the ui.notify values.
var notifyWays = []string{"terminal", "bell", "command"}

func notifyKind[T any](field func(*T) *[]string) kind[T] {
	return stringsKind(field, `["terminal", "command"], or [] for none`, func(w string) error {
		if !slices.Contains(notifyWays, w) {
			return fmt.Errorf("%s is not a way to notify (use %s)", literal(w), quoteAll(notifyWays))
		}
		return nil
	})
}
