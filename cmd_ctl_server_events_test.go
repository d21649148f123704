package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
)

// eventStream is a `sandmux ctl events` process and the lines it prints.
type eventStream struct {
	cmd    *exec.Cmd
	lines  chan string   // each line it printed; closed at its end
	exited chan struct{} // closed once the process was waited for
	stderr strings.Builder
}

// events starts ctl events and returns once its stream is live: it
// restarts a probe pane until an event arrives, then closes the probe,
// so the panes are as they were and nothing later is missed.
func (s *ctlServer) events() *eventStream {
	s.t.Helper()
	ev := &eventStream{lines: make(chan string, 4096), exited: make(chan struct{})}
	ev.cmd = exec.Command(sandmuxBin, "ctl", "-S", s.sock, "events")
	ev.cmd.Env, ev.cmd.Stderr = s.env, &ev.stderr
	out, err := ev.cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := ev.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { // owned: exited is closed only after it read everything
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, control.MaxLine)
		for sc.Scan() {
			ev.lines <- sc.Text()
		}
		close(ev.lines)
		_ = ev.cmd.Wait() // the status is read from ProcessState
		close(ev.exited)
	}()
	s.t.Cleanup(func() {
		_ = ev.cmd.Process.Kill() // Best effort: it may have ended with its server.
		<-ev.exited
	})
	probe, err := s.call(control.Request{Op: control.OpRun, Name: "probe", Argv: []string{"true"}})
	if err != nil {
		s.t.Fatalf("open a probe pane: %v", err)
	}
	id := probe.Session.ID
	for live := false; !live; {
		if _, err := s.call(control.Request{Op: control.OpWait, Session: id, State: "exited"}); err != nil {
			s.t.Fatalf("wait for the probe: %v", err)
		}
		select {
		case line := <-ev.lines:
			live = line != ""
		case <-time.After(100 * time.Millisecond): // no event yet: the stream is not live
			if _, err := s.call(control.Request{Op: control.OpRestart, Session: id}); err != nil {
				s.t.Fatalf("restart the probe: %v", err)
			}
		}
	}
	if _, err := s.call(control.Request{Op: control.OpClose, Session: id}); err != nil {
		s.t.Fatalf("close the probe: %v", err)
	}
	ev.next(s.t, "the probe's close", func(e control.Event) bool { return e.Kind == control.EventClosed && e.Session.ID == id })
	return ev
}

// next reads events until one matches, checking that every line is one
// JSON event with a kind and a time.
func (ev *eventStream) next(t *testing.T, what string, match func(control.Event) bool) control.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-ev.lines:
			if !ok {
				t.Fatalf("ctl events ended before %s: %s", what, ev.stderr.String())
			}
			var e control.Event
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.Kind == "" || e.Time.IsZero() {
				t.Fatalf("ctl events printed %q, not one JSON event (%v)", line, err)
			}
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("ctl events showed no %s", what)
		}
	}
}

// ctl events prints one JSON line per event, in order: a pane's start,
// its state changes, its exit and its close; a kill's; and it ends when
// the server quits.
func TestCtlServerEvents(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	ev := s.events()
	s.ok("run", "--name", "ev", "--", "sh", "-c", "read x; exit 5")
	pane := func(kind control.EventKind, detail string) func(control.Event) bool {
		return func(e control.Event) bool {
			return e.Kind == kind && e.Session != nil && e.Session.Name == "ev" && (detail == "" || e.Detail == detail)
		}
	}
	started := ev.next(t, "ev's start", pane(control.EventStarted, ""))
	if started.Session.Phase != "running" || started.Session.Number != 2 {
		t.Errorf("the started event shows %+v", started.Session)
	}
	s.ok("send", "ev", `go\r`)
	ev.next(t, "ev's state exited", pane(control.EventPhase, "exited"))
	exited := ev.next(t, "ev's exit", pane(control.EventExited, ""))
	if exited.Session.ExitCode == nil || *exited.Session.ExitCode != 5 {
		t.Errorf("the exited event shows %+v", exited.Session)
	}
	s.ok("close", "ev")
	if closed := ev.next(t, "ev's close", pane(control.EventClosed, "")); closed.Session.State != "closed" {
		t.Errorf("the closed event shows the session %s", closed.Session.State)
	}
	s.fails(exitFailure, "/nonexistent/prog", "run", "--", "/nonexistent/prog")
	failed := ev.next(t, "a failed start", func(e control.Event) bool { return e.Kind == control.EventPhase && e.Session.Name == "prog" })
	if failed.Detail != "failed" || !strings.Contains(failed.Session.Reason, "/nonexistent/prog") {
		t.Errorf("a start that failed shows as %q: %+v", failed.Detail, failed.Session)
	}
	ev.next(t, "the failed pane's close", func(e control.Event) bool { return e.Kind == control.EventClosed && e.Session.Name == "prog" })
	s.ok("kill", "1")
	ev.next(t, "cat's closing", func(e control.Event) bool { return e.Kind == control.EventPhase && e.Detail == "closing" })
	ev.next(t, "cat's kill", func(e control.Event) bool { return e.Kind == control.EventPhase && e.Detail == "killed" })

	s.stop()
	for range ev.lines { // drained until the process ends
	}
	<-ev.exited
	t.Logf("ctl events after the server quit: %s, stderr %q", ev.cmd.ProcessState, ev.stderr.String())
}

// A graceful ctl quit ends the server: its panes are torn down, it says
// how each ended, and its socket goes; a ctl wait pending then returns.
func TestCtlServerQuit(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	s.ok("wait", "1", "--state", "running")
	pending := make(chan string, 1)
	go func() {
		out, errOut, code := s.ctl("wait", "1", "--state", "closed")
		pending <- fmt.Sprintf("exit %d: %s%s", code, out, errOut)
	}()
	s.ok("quit")
	s.waitExit()
	if code := s.cmd.ProcessState.ExitCode(); code != exitOK {
		t.Errorf("the server exited %d after ctl quit:\n%s", code, s.logText())
	}
	if sum := s.summary(); !strings.Contains(sum, "cat: ") {
		t.Errorf("the server's summary = %q", sum)
	}
	t.Logf("a ctl wait pending over the quit: %s", <-pending)
	s.fails(exitFailure, "no sandmux server is running", "ls")
}
