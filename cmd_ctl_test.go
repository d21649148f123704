package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// recordingHandler answers ctl's requests as a server would and keeps
// what it was asked.
type recordingHandler struct {
	mu   sync.Mutex
	reqs []control.Request
}

func (h *recordingHandler) Handle(_ context.Context, req control.Request) control.Reply {
	h.mu.Lock()
	h.reqs = append(h.reqs, req)
	h.mu.Unlock()
	code := 3
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	switch req.Op {
	case control.OpLs:
		return control.Reply{OK: true, Sessions: []control.SessionInfo{
			{Number: 1, ID: "a1", Name: "web\x1b]0;x\x07", Provider: "local", State: "running", Started: started},
			{Number: 2, ID: "b2", Name: "db", Provider: "docker", State: "exited", ExitCode: &code, Started: started},
		}}
	case control.OpWait:
		return control.Reply{OK: true, Session: &control.SessionInfo{Number: 2, State: "exited", ExitCode: &code}}
	case control.OpScreen:
		return control.Reply{OK: true, Screen: "$ ls\nfile\n"}
	case control.OpKill:
		if req.Session == "9" {
			return control.Fail(errNoSuchSession)
		}
	}
	return control.Reply{OK: true}
}

var errNoSuchSession = errors.New("no session 9: sandmux ctl ls lists them")

// fakeServer serves the protocol on a socket with h; the real server is
// tested through its own package.
func fakeServer(t *testing.T) (string, *recordingHandler) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := endpoint.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &recordingHandler{}
	srv := control.NewServer(h, control.NewHub(), endpoint.CheckPeer)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() { cancel(); <-done })
	return path, h
}

func ctlBin(t *testing.T, path string, args ...string) (string, string, int) {
	t.Helper()
	return runBin(t, "", append([]string{"ctl", "-S", path}, args...)...)
}

func TestCtlSubcommandsBecomeRequests(t *testing.T) {
	path, h := fakeServer(t)
	cases := []struct {
		args []string
		want control.Request
	}{
		{[]string{"run", "--name", "w", "--", "sh", "-c", "x"}, control.Request{Op: control.OpRun, Name: "w", Argv: []string{"sh", "-c", "x"}}},
		{[]string{"start", "web"}, control.Request{Op: control.OpStart, Sandbox: "web"}},
		{[]string{"close", "2"}, control.Request{Op: control.OpClose, Session: "2"}},
		{[]string{"restart", "db"}, control.Request{Op: control.OpRestart, Session: "db"}},
		{[]string{"send", "--paste", "1", `ls\n\e[A\x03`}, control.Request{Op: control.OpSend, Session: "1", Data: []byte("ls\n\x1b[A\x03"), Paste: true}},
		{[]string{"keys", "1", "enter", "ctrl+c"}, control.Request{Op: control.OpKeys, Session: "1", Keys: []string{"enter", "ctrl+c"}}},
		{[]string{"screen", "--ansi", "--scrollback", "1"}, control.Request{Op: control.OpScreen, Session: "1", ANSI: true, Scrollback: true}},
		{[]string{"quit", "--kill"}, control.Request{Op: control.OpQuit, Kill: true}},
	}
	for _, c := range cases {
		if _, errOut, code := ctlBin(t, path, c.args...); code != 0 {
			t.Errorf("ctl %v: exit %d: %s", c.args, code, errOut)
			continue
		}
		h.mu.Lock()
		got := h.reqs[len(h.reqs)-1]
		h.mu.Unlock()
		c.want.V = control.Version
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(c.want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("ctl %v sent %s, want %s", c.args, gb, wb)
		}
	}
}

func TestCtlOutput(t *testing.T) {
	path, _ := fakeServer(t)
	out, _, code := ctlBin(t, path, "ls")
	if code != 0 || !strings.Contains(out, "NAME") || !strings.Contains(out, `web\x1b]0;x\x07`) || strings.ContainsRune(out, 0x1b) {
		t.Errorf("ctl ls = %q (exit %d): want a table with the name escaped", out, code)
	}
	out, _, _ = ctlBin(t, path, "--json", "ls")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 {
		t.Fatalf("ctl --json ls = %q: %v", out, err)
	}
	for _, field := range []string{"number", "id", "name", "provider", "state", "exit_code", "reason", "started", "last_output", "bytes_out", "pid"} {
		if _, ok := list[0][field]; !ok {
			t.Errorf("ctl --json ls has no field %q: %v", field, list[0])
		}
	}
	if out, _, code := ctlBin(t, path, "wait", "--state", "exited", "--timeout", "5s", "2"); code != 0 || out != "3\n" {
		t.Errorf("ctl wait = %q (exit %d), want the exit code 3", out, code)
	}
	if out, _, _ := ctlBin(t, path, "screen", "1"); out != "$ ls\nfile\n" {
		t.Errorf("ctl screen = %q", out)
	}
	if _, errOut, code := ctlBin(t, path, "kill", "9"); code != exitFailure || !strings.Contains(errOut, "ctl ls lists them") {
		t.Errorf("ctl kill 9: exit %d, %q; want 1 and the server's message", code, errOut)
	}
}

func TestCtlUsageAndNoServer(t *testing.T) {
	path, _ := fakeServer(t)
	for _, args := range [][]string{{}, {"frob"}, {"kill"}, {"send", "1", `\q`}, {"wait", "1"}, {"wait", "--state", "nap", "1"}, {"ls", "extra"}, {"run"}} {
		if _, _, code := ctlBin(t, path, args...); code != exitUsage {
			t.Errorf("ctl %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	_, errOut, code := ctlBin(t, filepath.Join(t.TempDir(), "none.sock"), "ls")
	if code != exitFailure || !strings.Contains(errOut, "no sandmux server is running") {
		t.Errorf("ctl with no server: exit %d, %q", code, errOut)
	}
}

// Inside a pane, ctl finds its own server through SANDMUX_SOCKET.
func TestCtlUsesPaneSocket(t *testing.T) {
	path, h := fakeServer(t)
	cmd := exec.CommandContext(t.Context(), sandmuxBin, "ctl", "close", "4")
	cmd.Env = append(isolatedEnv(t.TempDir()), endpoint.EnvSocket+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctl close with SANDMUX_SOCKET: %v: %s", err, out)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.reqs) != 1 || h.reqs[0].Session != "4" {
		t.Errorf("requests = %+v", h.reqs)
	}
}
