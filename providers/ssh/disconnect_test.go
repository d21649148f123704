package ssh

import (
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// Cutting the TCP connection marks the handle disconnected: Read and Wait
// return ErrDisconnected, GroupAlive turns false, and sshd's hang-up ends
// the remote command. A pane on a second connection is unaffected.
func TestDroppedConnectionMarksDisconnected(t *testing.T) {
	s := startServer(t)
	px := startProxy(t, s.addr())
	pidFile := filepath.Join(t.TempDir(), "pid")
	cut := open(t, s, providers.Spec{
		Command: []string{"sh", "-c", "echo $$ > " + pidFile + "; echo ready; exec sleep 1000"},
		Options: s.options(t, px.addr()),
	})
	other := open(t, s, providers.Spec{Command: []string{"sh", "-c", "read x; echo got $x"}})
	tmCut, tmOther := watch(t, cut), watch(t, other)
	tmCut.waitFor(t, "ready")

	px.cut()
	if _, err := tmCut.end(t); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("Read after the cut = %v, want ErrDisconnected", err)
	}
	st, err := wait(t, cut)
	if !errors.Is(err, ErrDisconnected) || !st.Unknown {
		t.Errorf("Wait after the cut = %+v, %v; want unknown status and ErrDisconnected", st, err)
	}
	if alive, _ := cut.GroupAlive(); alive {
		t.Error("GroupAlive after the cut = true")
	}
	if _, err := cut.Write([]byte("x")); !errors.Is(err, ErrDisconnected) {
		t.Errorf("Write after the cut = %v, want ErrDisconnected", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	waitProcessGone(t, pid)

	if _, err := other.Write([]byte("still-here\r")); err != nil {
		t.Fatal(err)
	}
	tmOther.waitFor(t, "got still-here")
}

// A link that goes silent (no FIN, no RST) is noticed by keepalives.
func TestSilentLinkNoticedByKeepalive(t *testing.T) {
	s := startServer(t)
	px := startProxy(t, s.addr())
	opts := s.options(t, px.addr())
	opts["keepalive"] = "100ms"
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "echo $$ > " + pidFile + "; echo ready; exec sleep 1000"}, Options: opts})
	tm := watch(t, p)
	tm.waitFor(t, "ready")
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	px.stopForwarding()
	_, err := tm.end(t)
	if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "keepalive") {
		t.Fatalf("Read after the link went silent = %v, want ErrDisconnected about keepalives", err)
	}
	if _, err := wait(t, p); !errors.Is(err, ErrDisconnected) {
		t.Errorf("Wait = %v, want ErrDisconnected", err)
	}
	// The remote command outlives the silent link until sshd sees its
	// connection close; once it does, nothing of the pane may be left.
	px.cut()
	waitProcessGone(t, pid)
}

// Keepalives on a healthy connection change nothing.
func TestKeepaliveOnHealthyConnection(t *testing.T) {
	s := startServer(t)
	answered := make(chan struct{}, 16)
	setHook(t, func(step string) {
		if step == "keepalive" {
			select {
			case answered <- struct{}{}:
			default:
			}
		}
	})
	opts := s.options(t, "")
	opts["keepalive"] = "100ms"
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "read x; echo got $x"}, Options: opts})
	tm := watch(t, p)
	for range 3 {
		<-answered
	}
	if _, err := p.Write([]byte("x\r")); err != nil {
		t.Fatal(err)
	}
	tm.waitFor(t, "got x")
	if _, err := tm.end(t); !errors.Is(err, io.EOF) {
		t.Errorf("Read at the end = %v, want io.EOF", err)
	}
	if st, err := wait(t, p); err != nil || st.Code != 0 {
		t.Errorf("Wait = %+v, %v", st, err)
	}
}

// setHook sets testHook until the test and its cleanups (registered later,
// so run earlier) are done.
func setHook(t *testing.T, f func(step string)) {
	t.Helper()
	testHook = f
	t.Cleanup(func() { testHook = nil })
}
