package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeRule is the README's screen rule for any pane.
const readmeRule = `[[rule]]
match = '(?m)^\s*Do you want to (\w+)'
state = "waiting"
reason = "asks to $1"
hold = "1s"
`

// askOnce asks the README's question once, says what it got and stays.
const askOnce = `printf 'Do you want to proceed? (y/n) '; read a; echo "got-$a"; exec sleep 1000`

// An answer through ctl send ends a screen rule's waiting, although the
// answered question stays on screen above the reply: the pane goes on to
// idle instead of waiting again.
func TestStatesRuleAnsweredByCtlSend(t *testing.T) {
	s := startCtlServer(t, sandboxUnused+"[ui]\nattention_after = \"1s\"\n"+readmeRule, askOnce)
	s.ok("wait", "1", "--state", "waiting", "--timeout", "30s")
	s.ok("send", "1", `y\n`)
	s.waitScreen("1", "got-y")
	s.ok("wait", "1", "--state", "idle", "--timeout", "30s")
	// The answer's echo may still show as working once its debounce
	// passes (a loaded machine delivers it late); what must not come back
	// is the rule's waiting.
	if si := s.session(1); si.State == "waiting" {
		t.Fatalf("after the answer: %+v, waiting again", si)
	}
}

// Typing the answer in a client does the same, and the title says so.
func TestTUIRuleAnsweredByTyping(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "sandmux.toml")
	if err := os.WriteFile(cfgPath, []byte(sandboxUnused+"[ui]\nattention_after = \"1s\"\n"+readmeRule), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 100, 24, sandmuxBin+" -c "+cfgPath+" '"+strings.ReplaceAll(askOnce, "'", `'\''`)+"'")
	tt.waitText("waiting: asks to proceed")
	tt.typeText("y")
	tt.keys("Enter")
	tt.waitText("got-y")
	s := tt.waitText(" · idle")
	if strings.Contains(s, "waiting") {
		t.Fatalf("still waiting after the answer:\n%s", s)
	}
}
