package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// rawConn is a client speaking the protocol by hand, to send what ctl
// never would.
type rawConn struct {
	t    *testing.T
	conn *net.UnixConn
	r    *control.Reader
}

func (s *ctlServer) raw() *rawConn {
	s.t.Helper()
	conn, err := endpoint.Dial(s.sock)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = conn.Close() }) // Best effort: a test may have closed it.
	return &rawConn{t: s.t, conn: conn, r: control.NewReader(conn)}
}

func (c *rawConn) send(line string) {
	c.t.Helper()
	if _, err := c.conn.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("write %.40q: %v", line, err)
	}
}

// reply reads one line and decodes it, failing on a line with a raw
// control byte in it.
func (c *rawConn) reply() control.Reply {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // Best effort: bounds a failure only.
	line, err := c.r.Line()
	if err != nil {
		c.t.Fatalf("read a reply: %v", err)
	}
	if bytes.ContainsAny(line, "\x1b\x07\r") {
		c.t.Errorf("a reply carries a raw control byte: %q", line)
	}
	var rep control.Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		c.t.Fatalf("reply %q is not JSON: %v", line, err)
	}
	return rep
}

// Garbage, unknown ops and fields, a wrong version and an overlong line
// each get an error saying what is wrong, the connection goes on, and
// other clients (an events stream among them) notice nothing.
func TestCtlServerBadRequests(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	ev := s.events()
	c := s.raw()
	cases := []struct{ line, want string }{
		{"garbage", "not a JSON object"},
		{"\x1b]0;evil\x07", "not a JSON object"},
		{`{"v":1,"op":"frob"}`, `unknown op "frob"`},
		{`{"v":1,"op":"ls","bogus":true}`, "bogus"},
		{`{"v":99,"op":"ls"}`, "protocol version 99 is not spoken here"},
		{`{"op":"ls"}`, "no protocol version"},
		{`{"v":1}`, `no "op"`},
		{`{"v":1,"op":"screen"}`, "session"},
		{`{"v":1,"op":"wait","session":"1","state":"nap"}`, `cannot wait for state "nap"`},
		{`{"v":1,"op":"attach","width":80,"height":24}`, "attach must be the first request"},
		{strings.Repeat("x", control.MaxLine+1), "longer than"},
	}
	for _, tc := range cases {
		c.send(tc.line)
		if rep := c.reply(); rep.OK || !strings.Contains(rep.Error, tc.want) {
			t.Errorf("%.40q: reply %+v, want an error saying %q", tc.line, rep, tc.want)
		}
		if out := s.ok("ls"); !strings.Contains(out, "running") {
			t.Errorf("after %.40q another client's ls shows %q", tc.line, out)
		}
	}
	c.send(`{"v":1,"op":"ls"}`)
	if rep := c.reply(); !rep.OK || len(rep.Sessions) != 1 {
		t.Errorf("the same connection's ls after the bad requests: %+v", rep)
	}
	s.ok("run", "--name", "after", "--", "true")
	ev.next(t, "the start of a pane run after the bad requests", func(e control.Event) bool {
		return e.Kind == control.EventStarted && e.Session.Name == "after"
	})
}

// A session no pane has is refused with exit 1 by every subcommand that
// names one; usage errors exit 2.
func TestCtlServerUnknownSessionsAndUsage(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	for _, args := range [][]string{
		{"screen", "99"}, {"close", "nosuch"}, {"kill", "0"}, {"restart", "p999"},
		{"send", "p999", "x"}, {"keys", "42", "enter"}, {"wait", "42", "--state", "exited"},
	} {
		s.fails(exitFailure, "no session", args...)
	}
	for _, args := range [][]string{{}, {"frob"}, {"screen"}, {"wait", "1"}, {"wait", "1", "--state", "nap"}, {"send", "1"}, {"ls", "x"}, {"quit", "now"}} {
		s.fails(exitUsage, "", args...)
	}
	s.ok("ls")
}

// Twenty clients at once, each listing, typing and reading the screen,
// all succeed, and every line typed arrives.
func TestCtlServerParallelClients(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	s.ok("wait", "1", "--state", "running")
	const clients = 20
	errs := make(chan string, clients*3)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for _, args := range [][]string{{"ls"}, {"send", "1", fmt.Sprintf(`client-%02d\r`, i)}, {"screen", "--scrollback", "1"}} {
				if out, errOut, code := s.ctl(args...); code != exitOK {
					errs <- fmt.Sprintf("client %d: ctl %q: exit %d: %s%s", i, args, code, out, errOut)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for i := range clients {
		s.waitScreen("1", fmt.Sprintf("client-%02d", i))
	}
	if list := s.sessions(); len(list) != 1 || list[0].Phase != "running" {
		t.Errorf("after the parallel clients: %+v", list)
	}
}

// Clients that go mid-stream (events) or mid-wait leave nothing behind
// in the server: it holds no connection of theirs once they are gone,
// and it answers as before.
func TestCtlServerDisconnects(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	s.ok("wait", "1", "--state", "running")
	s.settleConns() // that wait's connection, which may outlive its client a moment
	for range 20 {
		c := s.raw()
		c.send(`{"v":1,"op":"events"}`)
		if rep := c.reply(); !rep.OK {
			t.Fatalf("events: %+v", rep)
		}
		_ = c.conn.Close() // Best effort: going is the point.
		w := s.raw()
		w.send(`{"v":1,"op":"wait","session":"1","state":"exited"}`)
		_ = w.conn.Close() // Best effort: going is the point.
	}
	s.settleConns()
	// The same from ctl itself, killed mid-stream and mid-wait.
	for range 5 {
		ev := s.events()
		_ = ev.cmd.Process.Kill() // Best effort: it may not outlive the kill.
		<-ev.exited
		s.settleConns()
		w := exec.Command(sandmuxBin, "ctl", "-S", s.sock, "wait", "1", "--state", "exited")
		w.Env = s.env
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		s.pollConns(func(n int) bool { return n > 0 }, "ctl wait to connect")
		_ = w.Process.Kill() // Best effort: it may not outlive the kill.
		_ = w.Wait()         // killed: its status says so
		s.settleConns()
	}
	s.fails(exitFailure, "was not exited within", "wait", "1", "--state", "exited", "--timeout", "100ms")
	s.ok("send", "1", `still\r`)
	s.waitScreen("1", "still")
}

// settleConns waits until the server holds no connection.
func (s *ctlServer) settleConns() {
	s.t.Helper()
	s.pollConns(func(n int) bool { return n == 0 }, "the server to hold no connection")
}

func (s *ctlServer) pollConns(ok func(int) bool, what string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for n := s.connCount(); !ok(n); n = s.connCount() {
		if time.Now().After(deadline) {
			s.t.Fatalf("waited in vain for %s: the server holds %d", what, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An events reader that never reads is cut off once it falls a queue
// behind, while the server goes on answering everyone else. How it is
// cut off depends on the machine, not on sandmux: where the flood
// overruns the queue before the server's write to the stalled reader has
// waited 10 s, the hub drops it and its last line says so; on a slower
// machine that write times out first and the connection just ends. Both
// cut it off without waiting for it; the notice itself is pinned by
// control's TestStalledEventsReaderDropped, where the pace is the test's.
func TestCtlServerStalledEventsReader(t *testing.T) {
	s := startCtlServer(t, "", "cat")
	stalled := s.raw()
	stalled.send(`{"v":1,"op":"events"}`)
	// Three events a cycle: 1800 in all, past what the socket's buffer
	// holds (about 170) and the subscriber's queue (1024) together.
	const workers, cycles = 4, 150
	var ids []string
	for range workers {
		rep, err := s.call(control.Request{Op: control.OpRun, Argv: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rep.Session.ID)
	}
	stop := make(chan struct{})
	var ls sync.WaitGroup
	var lsCalls int
	ls.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if out, errOut, code := s.ctl("ls"); code != exitOK {
				t.Errorf("ctl ls during the flood: exit %d: %s%s", code, out, errOut)
			}
			lsCalls++
		}
	})
	began := time.Now()
	var flood sync.WaitGroup
	for _, id := range ids {
		flood.Go(func() {
			for range cycles {
				if !cycle(t, s, id) {
					return
				}
			}
		})
	}
	flood.Wait()
	close(stop)
	ls.Wait()
	t.Logf("%d restarts in %s; %d ctl ls meanwhile", workers*cycles, time.Since(began), lsCalls)

	var events int
	var last control.Reply
	for {
		_ = stalled.conn.SetReadDeadline(time.Now().Add(60 * time.Second)) // Best effort: bounds a failure only.
		line, err := stalled.r.Line()
		if err != nil {
			break
		}
		last = control.Reply{}
		if err := json.Unmarshal(line, &last); err != nil {
			t.Fatalf("the stalled reader got %q: %v", line, err)
		}
		if last.Event != nil {
			events++
		}
	}
	switch {
	case events >= 3*workers*cycles:
		t.Errorf("the stalled reader got all %d events: it was never cut off", events)
	case !last.OK && strings.Contains(last.Error, "dropped"):
		t.Logf("the stalled reader got %d events, then %q", events, last.Error)
	case last.Event != nil:
		t.Logf("the stalled reader got %d events, then its connection ended (the write to it timed out first)", events)
	default:
		t.Errorf("after %d events the stalled reader's last line is %+v, want an event or the dropped notice", events, last)
	}
	s.ok("ls")
}

// cycle waits until pane id exited and restarts it, reporting whether
// both went well.
func cycle(t *testing.T, s *ctlServer, id string) bool {
	if _, err := s.call(control.Request{Op: control.OpWait, Session: id, State: "exited", Timeout: control.Duration(60 * time.Second)}); err != nil {
		rep, _ := s.call(control.Request{Op: control.OpLs})
		t.Errorf("wait for %s: %v; the panes: %+v", id, err, rep.Sessions)
		return false
	}
	if _, err := s.call(control.Request{Op: control.OpRestart, Session: id}); err != nil {
		t.Errorf("restart %s: %v", id, err)
		return false
	}
	return true
}

// A program in a pane reaches its own server with plain `sandmux ctl`,
// through SANDMUX_SOCKET, and SANDMUX_PANE is its pane's id.
func TestCtlServerFromPane(t *testing.T) {
	s := startCtlServer(t, "", `printf %s "$SANDMUX_PANE" > pane.txt; sandmux ctl ls > ls.txt 2>&1`)
	if out := s.ok("wait", "1", "--state", "exited", "--timeout", "30s"); out != "0\n" {
		t.Fatalf("the pane running ctl ls exited %q:\n%s", out, s.ok("screen", "1"))
	}
	pane, _ := os.ReadFile(filepath.Join(s.dir, "pane.txt"))
	ls, _ := os.ReadFile(filepath.Join(s.dir, "ls.txt"))
	id := s.sessions()[0].ID
	if string(pane) != id {
		t.Errorf("SANDMUX_PANE = %q, want the pane's id %q", pane, id)
	}
	if !regexp.MustCompile(`(?m)^1\s+` + id + `\s.*\brunning\b`).Match(ls) {
		t.Errorf("ctl ls inside the pane printed:\n%s", ls)
	}
}
