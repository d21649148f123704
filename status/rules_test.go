package status

import (
	"errors"
	"testing"
	"time"
)

func mustCompile(t *testing.T, spec RuleSpec) *Rule {
	t.Helper()
	r, err := Compile(spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompileNamesTheField(t *testing.T) {
	for _, c := range []struct {
		spec  RuleSpec
		field string
	}{
		{RuleSpec{State: "waiting"}, "match"},
		{RuleSpec{Match: "(", State: "waiting"}, "match"},
		{RuleSpec{Match: "x", State: "busy"}, "state"},
		{RuleSpec{Match: "x", State: "closing"}, "state"},
		{RuleSpec{Match: "x", State: "idle", Rows: 1000}, "rows"},
		{RuleSpec{Match: "x", State: "idle", Hold: -1}, "hold"},
		{RuleSpec{Match: "x", State: "idle", Sandboxes: []string{"["}}, "sandboxes"},
		{RuleSpec{Match: "x", State: "idle", Command: "*"}, "command"},
	} {
		_, err := Compile(c.spec)
		var re *RuleError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("Compile(%+v) = %v, want an error about %s", c.spec, err, c.field)
		}
	}
}

func TestRuleFilters(t *testing.T) {
	r := mustCompile(t, RuleSpec{Match: "x", State: "idle", Sandboxes: []string{"agent-*", "web"}, Command: `\bclaude\b`})
	for _, c := range []struct {
		sandbox string
		argv    []string
		want    bool
	}{
		{"agent-1", []string{"claude", "--resume"}, true},
		{"web", []string{"/usr/bin/claude"}, true},
		{"db", []string{"claude"}, false},
		{"agent-2", []string{"bash"}, false},
	} {
		if got := r.AppliesTo(c.sandbox, c.argv); got != c.want {
			t.Errorf("AppliesTo(%q, %q) = %v", c.sandbox, c.argv, got)
		}
	}
}

func TestRuleReadsItsRows(t *testing.T) {
	tr := NewTracker(Config{Debounce: -1}, zeroTime)
	tr.Life("", "")
	tr.SetRules([]*Rule{mustCompile(t, RuleSpec{Match: `(?m)^> $`, Rows: 1, State: "waiting"})})
	if tr.RuleRows() != 1 {
		t.Fatalf("RuleRows = %d", tr.RuleRows())
	}
	tr.Screen([]string{"> ", "done."}, zeroTime)
	if st, _ := tr.Update(zeroTime); st.State == Waiting {
		t.Fatal("a rule read past its rows")
	}
	tr.Screen([]string{"done.", "> "}, zeroTime)
	if st, _ := tr.Update(zeroTime); st.State != Waiting {
		t.Fatalf("state %s, want waiting", st.State)
	}
}

var zeroTime = time.Unix(1e9, 0)

// An answer ends a rule's waiting although the question stays on screen,
// scrolled up with the reply under it; the rule waits again on a new
// question, or once the old one left the rows and a new one came.
func TestRuleAnsweredStaysAnswered(t *testing.T) {
	tr := NewTracker(Config{Debounce: -1}, zeroTime)
	tr.Life("", "")
	tr.SetRules([]*Rule{mustCompile(t, RuleSpec{Match: `(?m)^Do you want to (\w+)`, State: "waiting", Reason: "asks to $1"})})
	state := func(rows ...string) State {
		tr.Screen(rows, zeroTime)
		st, _ := tr.Update(zeroTime)
		return st.State
	}
	if st := state("$ run", "Do you want to proceed? (y/n)"); st != Waiting {
		t.Fatalf("state %s before the answer, want waiting", st)
	}
	tr.Input()
	if st, _ := tr.Update(zeroTime); st.State == Waiting {
		t.Fatal("still waiting right after the answer")
	}
	if st := state("$ run", "Do you want to proceed? (y/n) y", "ok"); st == Waiting {
		t.Fatal("waiting again on the answered question")
	}
	if st := state("$ run", "Do you want to proceed? (y/n) y", "ok", "Do you want to continue? (y/n)"); st != Waiting {
		t.Fatalf("state %s on a second question, want waiting", st)
	}
	tr.Input()
	if st := state("ok", "all done"); st == Waiting {
		t.Fatal("waiting with no question on screen")
	}
	if st := state("ok", "Do you want to retry?"); st != Waiting {
		t.Fatalf("state %s on a question after the screen cleared, want waiting", st)
	}
}

// Typing answers only a waiting rule: one that says working goes on.
func TestRuleInputKeepsOtherStates(t *testing.T) {
	tr := NewTracker(Config{Debounce: -1}, zeroTime)
	tr.Life("", "")
	tr.SetRules([]*Rule{mustCompile(t, RuleSpec{Match: `Compiling`, State: "working"})})
	tr.Screen([]string{"Compiling x"}, zeroTime)
	tr.Update(zeroTime)
	tr.Input()
	tr.Screen([]string{"Compiling x"}, zeroTime)
	if st, _ := tr.Update(zeroTime); st.State != Working {
		t.Fatalf("state %s after input, want working", st.State)
	}
}
