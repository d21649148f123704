package server

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/session/vt"
)

func TestCtlLs(t *testing.T) {
	h := serve(t)
	rep := h.must(t, control.Request{Op: control.OpLs})
	var got []string
	for _, si := range rep.Sessions {
		got = append(got, fmt.Sprintf("%d %s %s", si.Number, si.ID, si.Name))
	}
	want := []string{"1 a1 web", "2 b2 web", "3 c3 1"}
	if !slices.Equal(got, want) {
		t.Errorf("ls: got %q, want %q", got, want)
	}
}

func TestCtlRunAndStart(t *testing.T) {
	h := serve(t)
	rep := h.must(t, control.Request{Op: control.OpRun, Argv: []string{"htop", "-d", "5"}})
	if rep.Session == nil || rep.Session.Number != 4 || rep.Session.Name != "htop" {
		t.Errorf("run: got session %+v, want pane 4 named htop", rep.Session)
	}
	rep = h.must(t, control.Request{Op: control.OpRun, Name: "top", Argv: []string{"htop"}})
	if rep.Session == nil || rep.Session.Name != "top" {
		t.Errorf("run --name: got session %+v, want one named top", rep.Session)
	}
	rep = h.must(t, control.Request{Op: control.OpStart, Sandbox: "box"})
	if rep.Session == nil || rep.Session.Provider != "docker" {
		t.Errorf("start: got session %+v, want the docker sandbox", rep.Session)
	}
	if _, err := h.call(t, control.Request{Op: control.OpStart, Sandbox: "nope"}); err == nil || !strings.Contains(err.Error(), `start sandbox "nope": no sandbox`) {
		t.Errorf("start of an unknown sandbox: %v, want the core's error with the op", err)
	}
	if _, err := h.call(t, control.Request{Op: control.OpRun, Argv: []string{""}}); err == nil || !strings.Contains(err.Error(), "run needs a command") {
		t.Errorf("run of nothing: %v, want an error saying a command is needed", err)
	}
	want := []string{`run  ["htop" "-d" "5"]`, `run top ["htop"]`, "start box", "start nope"}
	if got := h.core.Calls(); !slices.Equal(got, want) {
		t.Errorf("core calls: got %q, want %q", got, want)
	}
}

func TestCtlCloseKillRestart(t *testing.T) {
	h := serve(t)
	rep := h.must(t, control.Request{Op: control.OpKill, Session: "a1"})
	if rep.Session == nil || rep.Session.State != "killed" {
		t.Errorf("kill: got session %+v, want it killed", rep.Session)
	}
	rep = h.must(t, control.Request{Op: control.OpRestart, Session: "a1"})
	if rep.Session == nil || rep.Session.State != "running" {
		t.Errorf("restart: got session %+v, want it running", rep.Session)
	}
	_, err := h.call(t, control.Request{Op: control.OpRestart, Session: "b2"})
	if err == nil || !strings.Contains(err.Error(), `restart pane 2 ("web"): it is still running: kill or close it first`) {
		t.Errorf("restart of a running pane: %v, want the core's refusal naming the pane", err)
	}
	rep = h.must(t, control.Request{Op: control.OpClose, Session: "3"})
	if rep.Session != nil {
		t.Errorf("close: got session %+v, want none (it is gone)", rep.Session)
	}
	want := []string{"kill a1", "restart a1", "restart b2", "close c3"}
	if got := h.core.Calls(); !slices.Equal(got, want) {
		t.Errorf("core calls: got %q, want %q", got, want)
	}
}

func TestCtlResolve(t *testing.T) {
	cases := []struct{ ref, id, err string }{
		{"1", "a1", ""}, // the number wins over the pane named "1"
		{"2", "b2", ""},
		{"3", "c3", ""},
		{"c3", "c3", ""},
		{"b2", "b2", ""},
		{"web", "", `name "web" is ambiguous: panes 1, 2 have it; name one by its number or id`},
		{"4", "", `no session "4": sandmux ctl ls lists them`},
		{"+1", "", `no session "+1"`},
		{"-1", "", `no session "-1"`},
		{"x\x1b]0;owned\a", "", `no session "x\x1b]0;owned\a"`},
		{strings.Repeat("y", 500), "", `…: sandmux ctl ls lists them`},
		{"", "", "name a session by its pane number, name or id"},
	}
	for _, c := range cases {
		si, err := resolveIn(testSessionsNumbered(), c.ref)
		if c.ref == "" {
			_, err = (&ctlHandler{core: newFakeCore(control.NewHub())}).resolve(c.ref)
		}
		switch {
		case c.err == "" && (err != nil || si.ID != c.id):
			t.Errorf("%q: got %q, %v; want %s", c.ref, si.ID, err, c.id)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%.40q: got error %v, want one saying %q", c.ref, err, c.err)
		case err != nil && len(err.Error()) > 120:
			t.Errorf("%.40q: error of %d bytes quotes too much", c.ref, len(err.Error()))
		}
	}
	// A name shared by no one else, and a pane named like a number that
	// no pane has, both resolve by name.
	list := append(testSessionsNumbered(), control.SessionInfo{Number: 4, ID: "d4", Name: "9"})
	if si, err := resolveIn(list, "9"); err != nil || si.ID != "d4" {
		t.Errorf(`"9" with no pane 9: got %q, %v; want the pane named 9`, si.ID, err)
	}
}

func testSessionsNumbered() []control.SessionInfo {
	return newFakeCore(control.NewHub(), testSessions()...).Sessions()
}

func TestCtlResolveOverTheSocket(t *testing.T) {
	h := serve(t)
	if _, err := h.call(t, control.Request{Op: control.OpKill, Session: "web"}); err == nil || !strings.Contains(err.Error(), "ambiguous: panes 1, 2") {
		t.Errorf("kill web: %v, want the ambiguity listing the panes", err)
	}
	if _, err := h.call(t, control.Request{Op: control.OpScreen, Session: "zzz"}); err == nil || !strings.Contains(err.Error(), `no session "zzz": sandmux ctl ls lists them`) {
		t.Errorf("screen zzz: %v, want the unknown-session error", err)
	}
	if got := h.core.Calls(); len(got) != 0 {
		t.Errorf("core calls after refusals: %q, want none", got)
	}
}

func TestCtlSend(t *testing.T) {
	h := serve(t)
	h.must(t, control.Request{Op: control.OpSend, Session: "1", Data: []byte("ls\n")})
	if got := h.core.take("a1"); got != "ls\n" {
		t.Errorf("send: typed %q, want the bytes as sent", got)
	}
	h.must(t, control.Request{Op: control.OpSend, Session: "1", Data: []byte("a\nb"), Paste: true})
	if got := h.core.take("a1"); got != "a\nb" {
		t.Errorf("send --paste without bracketed paste: typed %q, want the bytes as sent", got)
	}
	h.core.setModes("a1", vt.Modes{BracketedPaste: true})
	h.must(t, control.Request{Op: control.OpSend, Session: "1", Data: []byte("a\x1b[201~b"), Paste: true})
	if got := h.core.take("a1"); got != "\x1b[200~ab\x1b[201~" {
		t.Errorf("send --paste with bracketed paste: typed %q, want it bracketed, the inner end marker gone", got)
	}
	h.must(t, control.Request{Op: control.OpSend, Session: "1", Data: []byte("x")})
	if got := h.core.take("a1"); got != "x" {
		t.Errorf("send without --paste in bracketed mode: typed %q, want the bytes as sent", got)
	}
}

func TestCtlInputRefused(t *testing.T) {
	h := serve(t)
	h.core.setState("b2", "exited")
	_, err := h.call(t, control.Request{Op: control.OpKeys, Session: "2", Keys: []string{"enter"}})
	if err == nil || !strings.Contains(err.Error(), `type into pane 2 ("web"): it has exited: restart it with sandmux ctl restart 2`) {
		t.Errorf("keys into an exited pane: %v, want the core's refusal naming the pane", err)
	}
}

func TestCtlKeys(t *testing.T) {
	h := serve(t)
	h.must(t, control.Request{Op: control.OpKeys, Session: "b2", Keys: []string{"enter", "ctrl+c", "up"}})
	if got := h.core.take("b2"); got != "\r\x03\x1b[A" {
		t.Errorf("keys: typed %q, want \\r, 0x03, ESC [ A", got)
	}
	h.core.setModes("b2", vt.Modes{AppCursor: true})
	h.must(t, control.Request{Op: control.OpKeys, Session: "b2", Keys: []string{"up"}})
	if got := h.core.take("b2"); got != "\x1bOA" {
		t.Errorf("up in application cursor mode: typed %q, want ESC O A", got)
	}
	_, err := h.call(t, control.Request{Op: control.OpKeys, Session: "b2", Keys: []string{"enter", "entr"}})
	if err == nil || !strings.Contains(err.Error(), `unknown key "entr"`) {
		t.Errorf("an unknown key: %v, want an error naming it", err)
	}
	if got := h.core.take("b2"); got != "" {
		t.Errorf("keys with an unknown one: typed %q, want nothing", got)
	}
}

func TestCtlScreenAndQuit(t *testing.T) {
	h := serve(t)
	rep := h.must(t, control.Request{Op: control.OpScreen, Session: "c3", ANSI: true, Scrollback: true})
	if rep.Screen != "screen of c3 ansi=true scrollback=true\n" {
		t.Errorf("screen: got %q, want the core's screen with both options passed on", rep.Screen)
	}
	h.must(t, control.Request{Op: control.OpQuit})
	h.must(t, control.Request{Op: control.OpQuit, Kill: true})
	want := []string{"quit kill=false", "quit kill=true"}
	if got := h.core.Calls(); !slices.Equal(got, want) {
		t.Errorf("core calls: got %q, want %q", got, want)
	}
}

// TestCtlParallelClients has 20 clients at once, each on its own
// connection, issuing a mix of requests; -race checks the handler shares
// nothing unsafely, and each client sees only its own answers.
func TestCtlParallelClients(t *testing.T) {
	h := serve(t)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		c := h.dial(t)
		wg.Go(func() {
			id := []string{"a1", "b2", "c3"}[i%3]
			for range 10 {
				reqs := []control.Request{
					{Op: control.OpLs},
					{Op: control.OpKeys, Session: id, Keys: []string{"x"}},
					{Op: control.OpScreen, Session: id},
					{Op: control.OpWait, Session: id, State: map[string]string{"a1": "running", "b2": "running", "c3": "exited"}[id]},
				}
				for _, req := range reqs {
					rep, err := c.Call(t.Context(), req)
					if err != nil {
						errs <- fmt.Errorf("client %d, %s: %w", i, req.Op, err)
						return
					}
					if req.Op == control.OpScreen && !strings.Contains(rep.Screen, id) {
						errs <- fmt.Errorf("client %d got another's screen: %q", i, rep.Screen)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for _, id := range []string{"a1", "b2", "c3"} {
		total += len(h.core.take(id))
	}
	if total != 200 {
		t.Errorf("typed %d keys in all, want 200", total)
	}
}
