package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
)

// sessionJSON is `ctl ls --json`'s entry for one session.
func (s *ctlServer) session(n int) control.SessionInfo {
	s.t.Helper()
	list := s.sessions()
	if n < 1 || n > len(list) {
		s.t.Fatalf("no session %d in %+v", n, list)
	}
	return list[n-1]
}

// sandboxUnused makes a config valid whose server runs ad-hoc commands.
const sandboxUnused = "[[sandbox]]\nname = \"unused\"\n"

// A screen rule on a real pane makes it waiting once its match has held
// for the rule's hold, with the reason the rule builds from the match,
// and not before: the pane prints when the prompt appears.
func TestStatesScreenRuleHolds(t *testing.T) {
	cfg := sandboxUnused + `[[rule]]
match = 'Proceed with (\w+)\?'
state = "waiting"
reason = "asks about $1"
hold = "1s"
command = "^sh -c printf"
`
	s := startCtlServer(t, cfg, `printf 'building\n'; sleep 0.3; date +%s.%N; printf 'Proceed with deploy? '; exec sleep 1000`)
	s.ok("wait", "1", "--state", "waiting", "--timeout", "30s")
	si := s.session(1)
	if si.State != "waiting" || si.Reason != "asks about deploy" || si.Phase != "running" {
		t.Fatalf("session %+v, want waiting (asks about deploy), still running", si)
	}
	screen := s.ok("screen", "1")
	var printed float64
	for _, line := range strings.Split(screen, "\n") {
		if f, err := strconv.ParseFloat(strings.TrimSpace(line), 64); err == nil {
			printed = f
		}
	}
	if printed == 0 || si.Since == nil {
		t.Fatalf("no time on the screen or no since: %q %v", screen, si.Since)
	}
	if held := float64(si.Since.UnixNano())/1e9 - printed; held < 1 {
		t.Errorf("waiting %.3fs after the prompt appeared, before the rule's hold of 1s", held)
	}
}

// ctl status run inside a pane names that pane (SANDMUX_PANE) and sets
// its state at once; a report with a ttl gives way when it runs out.
func TestStatesCtlStatusFromInsidePane(t *testing.T) {
	s := startCtlServer(t, sandboxUnused+"[ui]\nattention_after = \"1s\"\n",
		`sandmux ctl status waiting --reason 'needs approval' && echo reported; exec sleep 1000`)
	s.waitScreen("1", "reported")
	if si := s.session(1); si.State != "waiting" || si.Reason != "needs approval" {
		t.Fatalf("after ctl status inside the pane: %+v", si)
	}
	// The ttl outlasts the two ctl calls even on a slow, loaded machine
	// (each starts the race-built binary): at 500ms it ran out first there.
	s.ok("status", "1", "working", "--reason", "tests", "--ttl", "5s")
	if si := s.session(1); si.State != "working" || si.Reason != "tests" {
		t.Fatalf("after ctl status working: %+v", si)
	}
	// The report is gone after its ttl: the pane, quiet, is idle.
	s.ok("wait", "1", "--state", "idle", "--timeout", "30s")
	s.fails(2, `"closing" cannot be reported: use one of waiting, working, idle, done, or clear to drop the last report`, "status", "1", "closing")
	// A report without a ttl holds until the next; clear drops it.
	s.ok("status", "1", "working", "--reason", "a hook")
	if si := s.session(1); si.State != "working" || si.Reason != "a hook" {
		t.Fatalf("after ctl status working: %+v", si)
	}
	s.ok("status", "1", "clear")
	s.ok("wait", "1", "--state", "idle", "--timeout", "30s")
}

// The notify command runs once for each entry into waiting while no
// client is attached: a second notification while waiting is no new
// entry; an answer, then a new notification, is.
func TestContract_N2_NotifyOncePerEntry(t *testing.T) {
	dir := t.TempDir()
	log, goOn := filepath.Join(dir, "notified"), filepath.Join(dir, "go-on")
	cfg := sandboxUnused + `[ui]
notify = ["command"]
notify_command = ["sh", "-c", 'printf "%s|%s|%s|%s\n" "$SANDMUX_PANE" "$SANDMUX_NAME" "$SANDMUX_STATE" "$SANDMUX_REASON" >>` + log + `']
`
	// The pane waits for the test's file, not for input: input answers.
	s := startCtlServer(t, cfg, `printf '\033]9;first\007'; until [ -e `+goOn+` ]; do sleep 0.05; done; `+
		`printf '\033]9;again\007'; read x; printf '\033]9;second\007'; exec sleep 1000`)
	s.ok("wait", "1", "--state", "waiting", "--timeout", "30s")
	waitLines(t, log, 1)
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.waitSession(1, "the second notification", func(si control.SessionInfo) bool { return si.Reason == "again" })
	s.ok("send", "1", `y\n`)
	// The answer ends the wait; the next notification starts another.
	waitLines(t, log, 2)
	s.ok("quit", "--kill")
	s.waitExit()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "p0|printf|waiting|first\np0|printf|waiting|second\n"
	if string(data) != want {
		t.Errorf("the notify command ran:\n%s\nwant once per entry:\n%s", data, want)
	}
}

// waitSession polls session n until ok accepts it.
func (s *ctlServer) waitSession(n int, what string, ok func(control.SessionInfo) bool) control.SessionInfo {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		si := s.session(n)
		if ok(si) {
			return si
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("session %d never showed %s: %+v", n, what, si)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitLines polls file until it has n lines; a command the server runs
// in the background has no other sign that it ran.
func waitLines(t *testing.T, file string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(file)
		if strings.Count(string(data), "\n") >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has not %d lines: %q", file, n, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wait --state goes by the state, --phase by the phase: a command that
// failed in a shell makes the pane failed, while the shell runs on.
func TestStatesWaitStateOrPhase(t *testing.T) {
	s := startCtlServer(t, sandboxUnused, `printf '\033]133;C\007oops\n\033]133;D;1\007'; exec sleep 1000`)
	s.ok("wait", "1", "--state", "failed", "--timeout", "30s")
	s.ok("wait", "1", "--phase", "running", "--timeout", "30s")
	s.fails(1, "was not failed within 200ms: it is failed, phase running", "wait", "1", "--phase", "failed", "--timeout", "200ms")
	s.fails(2, "give --state or --phase (one of them)", "wait", "1", "--state", "failed", "--phase", "running")
	if si := s.session(1); si.State != "failed" || si.Reason != "the command exited 1" || si.Phase != "running" {
		t.Errorf("session %+v", si)
	}
}
