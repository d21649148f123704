package main

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyClient is `sandmux attach` on a terminal the test reads: what the
// client writes reaches the test whole (tmux 3.3 keeps OSC 9 to itself).
type ptyClient struct {
	t    *testing.T
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func attachPTY(t *testing.T, dir string, cols, rows uint16) *ptyClient {
	t.Helper()
	c := &ptyClient{t: t, cmd: exec.Command(sandmuxBin, "attach"), done: make(chan struct{})}
	c.cmd.Env = isolatedEnv(dir)
	ptmx, err := pty.StartWithAttrs(c.cmd, &pty.Winsize{Cols: cols, Rows: rows}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		t.Fatalf("attach on a PTY: %v", err)
	}
	go func() { // owned: the cleanup waits for it
		defer close(c.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			c.mu.Lock()
			c.out.Write(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return // EIO once the client is gone
			}
		}
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Signal(syscall.SIGHUP) // a closed terminal: the client detaches
		_ = ptmx.Close()
		<-c.done
		if err := c.cmd.Wait(); err != nil && !errors.As(err, new(*exec.ExitError)) {
			t.Errorf("the PTY client: %v", err)
		}
	})
	return c
}

func (c *ptyClient) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// waitOutput polls what the client wrote until it holds want.
func (c *ptyClient) waitOutput(what, want string) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.output(), want) {
		if time.Now().After(deadline) {
			c.t.Fatalf("the PTY client never wrote %s (%q); it wrote:\n%q", what, want, tail(c.output(), 2000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

var _ io.Reader // the ptmx is one

// Twelve panes; one asks for input with OSC 9 while another is focused.
// Its title and the status line's counts say it waits, the outer
// terminal of a client that looks elsewhere gets sandmux's OSC 9, the
// session list (prefix w) puts it first, and Enter there focuses it.
func TestTUIWaitingPaneIsFoundAndNotified(t *testing.T) {
	cmds := make([]string, 12)
	for i := range cmds {
		cmds[i] = "cat"
	}
	cmds[6] = `'read x; printf "\033]9;need input\007"; exec cat'`
	tt := startTerm(t, 200, 50, sandmuxBin+" "+strings.Join(cmds, " "))
	tt.waitText("12 idle")
	outer := attachPTY(t, tt.dir, 120, 40)
	outer.waitOutput("its first frame", "12 idle")

	ctlIn(t, tt.dir, "send", "7", `go\r`)
	tt.waitFor("pane 7 waiting in its title and the counts", func(s string) bool {
		return strings.Contains(s, "7 ● read · local · waiting: need input") && strings.Contains(s, "1 waiting · 11 idle")
	})
	outer.waitOutput("a notification", "\x1b]9;read is waiting: need input\x07")

	tt.keys("C-b", "w")
	list := tt.waitFor("the whole session list", func(s string) bool {
		return strings.Contains(s, "enter go to it") && len(listRows(s)) == 12
	})
	rows := listRows(list)
	if len(rows) != 12 || !strings.Contains(rows[0], "read") || !strings.Contains(rows[0], "waiting") {
		t.Fatalf("the session list does not put the waiting pane first:\n%s", list)
	}
	tt.keys("Enter")
	tt.waitFor("pane 7 focused: its mark cleared", func(s string) bool {
		return strings.Contains(s, "7 read · local · waiting") && !strings.Contains(s, "●")
	})
	tt.typeText("typed-into-7")
	tt.keys("Enter")
	if screen := waitCtlScreen(t, tt.dir, "7", "typed-into-7"); !strings.Contains(screen, "typed-into-7") {
		t.Fatalf("Enter in the list did not focus pane 7: its screen is\n%s", screen)
	}
}

// listRows are the session list's rows, one per pane, as the screen
// shows them: the lines after its header that start with a number.
func listRows(screen string) []string {
	var rows []string
	header := false
	for _, line := range strings.Split(screen, "\n") {
		parts := strings.Split(line, "│") // the box sits over the panes
		if len(parts) < 3 {
			continue
		}
		line = parts[1]
		f := strings.Fields(strings.Trim(line, " ▸"))
		switch {
		case len(f) > 2 && f[0] == "#" && f[1] == "name":
			header = true
		case header && len(f) > 2 && f[0] >= "1" && f[0][0] <= '9':
			rows = append(rows, line)
		}
	}
	return rows
}

// waitCtlScreen polls ctl screen of pane n until it shows want.
func waitCtlScreen(t *testing.T, dir, n, want string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := ctlIn(t, dir, "screen", n)
		if strings.Contains(s, want) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
}
