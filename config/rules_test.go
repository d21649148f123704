package config

import (
	"testing"

	"github.com/sandmux/sandmux/status"
)

// [[rule]] tables are compiled in the file's order, each with what it
// says and only for the panes it names.
func TestConfigRules(t *testing.T) {
	c, err := parseConfig("sandmux.toml", []byte(`[[sandbox]]
name = "agent-1"

[[rule]]
match = '(?m)^\s*Do you want to (\w+)'
rows = 5
state = "waiting"
reason = "asks to $1"
command = "claude"
sandboxes = ["agent-*"]
hold = "1s"

[[rule]]
match = "esc to interrupt"
state = "working"
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rules) != 2 || c.Rules[0].Rows() != 5 || c.Rules[1].Rows() != status.DefaultRuleRows {
		t.Fatalf("rules %+v", c.Rules)
	}
	if !c.Rules[0].AppliesTo("agent-1", []string{"claude"}) || c.Rules[0].AppliesTo("web", []string{"claude"}) || !c.Rules[1].AppliesTo("web", nil) {
		t.Error("the rules' filters are not as written")
	}
}
