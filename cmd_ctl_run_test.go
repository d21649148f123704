package main

import (
	"strings"
	"testing"
)

// ctl run of a program that cannot start fails, exit 1, saying why once
// and blaming no config, and leaves no pane; a wait on a pane whose
// process ended, for a state it cannot reach, ends at once.
func TestCtlRunThatCannotStart(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	out, errOut, code := s.ctl("run", "--", "no-such-program-for-sandmux")
	if code != exitFailure || out != "" {
		t.Fatalf("ctl run of a missing program: exit %d, stdout %q, stderr %q; want exit 1 and no pane number", code, out, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || strings.Count(errOut, "not found") != 1 || strings.Count(errOut, "no-such-program-for-sandmux") > 2 ||
		strings.Contains(errOut, "config") || !strings.Contains(errOut, "install no-such-program-for-sandmux or give its full path") {
		t.Errorf("ctl run of a missing program says %q: want one line, one reason, what to do, no config", errOut)
	}
	if n := len(s.sessions()); n != 1 {
		t.Errorf("%d sessions after a failed run, want only the first: %+v", n, s.sessions())
	}

	s.ok("run", "--name", "three", "--", "sh", "-c", "exit 3")
	s.ok("wait", "three", "--phase", "exited", "--timeout", "30s")
	s.fails(exitFailure, "nothing running that could become waiting", "wait", "three", "--state", "waiting")
}

// ctl run 'CMD' runs CMD as sandmux 'CMD' does: one argument with
// spaces or shell characters is a command line for sh -c; a plain word
// is the program.
func TestCtlRunOneArgumentIsACommandLine(t *testing.T) {
	s := startCtlServer(t, "", "echo first-$((6*7)); exec sleep 1000")
	s.waitScreen("1", "first-42")
	if out := s.ok("run", "sleep 1000"); out != "2\n" {
		t.Fatalf("ctl run 'sleep 1000' printed %q", out)
	}
	s.ok("run", "echo second-$((6*7)); exec cat")
	s.waitScreen("3", "second-42")
	if si := s.session(2); si.Phase != "running" || si.Name != "sleep" {
		t.Errorf("ctl run 'sleep 1000': %+v, want a running pane named sleep", si)
	}
}
