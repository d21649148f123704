package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxTerm is a private tmux server playing the user's terminal: sandmux runs
// inside it, send-keys types, capture-pane reads the screen.
type tmuxTerm struct {
	t     *testing.T
	sock  string
	dir   string
	shell int // the pid of the shell running the command, once known
}

// startTerm runs cmd in a new tmux of w×h. The command runs as
// `sh -c 'CMD; echo EXIT=$?; touch DIR/done; sleep 600'` so the screen can
// still be read after it exits, and `stty -a` is saved before and after so a
// test can check the terminal was restored.
func startTerm(t *testing.T, w, h int, cmd string) *tmuxTerm {
	t.Helper()
	return startTermSetup(t, w, h, cmd, nil)
}

// startTermSetup is startTerm with setup run on the terminal's directory
// (where isolatedEnv puts the config, data and state) before cmd starts.
func startTermSetup(t *testing.T, w, h int, cmd string, setup func(dir string)) *tmuxTerm {
	t.Helper()
	need(t, "tmux")
	dir := t.TempDir()
	if setup != nil {
		setup(dir)
	}
	tt := startTermIn(t, dir, w, h, cmd)
	t.Cleanup(func() { stopServer(t, dir) })
	return tt
}

// startTermIn runs cmd in a new tmux of w×h over the isolated environment
// of dir, which terminals of one test may share (they then reach the same
// server). Each terminal's marker files carry its own name.
func startTermIn(t *testing.T, dir string, w, h int, cmd string) *tmuxTerm {
	t.Helper()
	need(t, "tmux")
	tt := &tmuxTerm{t: t, sock: fmt.Sprintf("sandmux-test-%d-%d", os.Getpid(), time.Now().UnixNano()), dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, tt.sock), 0o700); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("stty -a > %[1]s/stty.before; %[2]s; echo EXIT=$?; stty -a > %[1]s/stty.after; touch %[1]s/done; sleep 600",
		filepath.Join(dir, tt.sock), cmd)
	c := exec.Command("tmux", "-L", tt.sock, "-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), script)
	c.Env = isolatedEnv(dir)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("start tmux: %v: %s", err, out)
	}
	if out, err := exec.Command("tmux", "-L", tt.sock, "display-message", "-p", "#{pane_pid}").Output(); err == nil {
		tt.shell, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	t.Cleanup(tt.kill)
	return tt
}

// kill ends the terminal, as closing its window would: sandmux in it
// gets SIGHUP. It waits for the terminal's shell to go: tmux signals it
// after kill-server returns, and a shell still writing its marker files
// made the test's TempDir cleanup fail ("directory not empty").
func (tt *tmuxTerm) kill() {
	_ = exec.Command("tmux", "-L", tt.sock, "kill-server").Run()
	if tt.shell <= 0 {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", tt.shell))
		if i := bytes.LastIndexByte(b, ')'); err != nil || i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return // gone, or a zombie: it writes nothing more
		}
		time.Sleep(10 * time.Millisecond) // a poll interval: no event tells another process's end
	}
	tt.t.Errorf("the terminal's shell %d outlived tmux's kill-server by 30s", tt.shell)
}

// serverSocket is the default server's socket under isolatedEnv(dir).
func serverSocket(dir string) string {
	return filepath.Join(dir, "run", fmt.Sprintf("sandmux-%d", os.Getuid()), "default.sock")
}

// stopServer ends the server a test's sandmux started in the background,
// killing what it runs, and waits until it is gone: a server outlives its
// clients by design, so no test may leave one behind.
func stopServer(t *testing.T, dir string) {
	sock := serverSocket(dir)
	if _, err := os.Stat(sock); err != nil {
		return
	}
	cmd := exec.Command(sandmuxBin, "ctl", "-S", sock, "quit", "--kill")
	cmd.Env = isolatedEnv(dir)
	_ = cmd.Run() // Best effort: a server already quitting refuses; it goes either way.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(sock); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the server at %s did not exit", sock)
}

// isolatedEnv keeps the user's config and data out of the test.
func isolatedEnv(dir string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "TMUX") {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_CONFIG_HOME="+dir+"/config", "XDG_DATA_HOME="+dir+"/data", "XDG_STATE_HOME="+dir+"/state",
		"XDG_RUNTIME_DIR="+dir+"/run", "TERM=xterm-256color",
		// The race-built binary sleeps a second at exit by default: each
		// ctl call of a test would cost that.
		"GORACE=atexit_sleep_ms=0")
}

func (tt *tmuxTerm) tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (C-b, Enter, Right…).
func (tt *tmuxTerm) keys(keys ...string) { tt.tmux(append([]string{"send-keys"}, keys...)...) }

// typeText sends literal text.
func (tt *tmuxTerm) typeText(s string) { tt.tmux("send-keys", "-l", s) }

func (tt *tmuxTerm) screen() string { return tt.tmux("capture-pane", "-p") }

func (tt *tmuxTerm) format(f string) string {
	return strings.TrimSpace(tt.tmux("display-message", "-p", f))
}

// waitFor polls the screen until ok accepts it. There is no event for "the
// screen now shows X", so this polls with a generous deadline; it never
// asserts on time.
func (tt *tmuxTerm) waitFor(what string, ok func(string) bool) string {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tt.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStarted waits until some pane's title says its session runs: idle,
// working or waiting, as its state goes.
func (tt *tmuxTerm) waitStarted() string {
	return tt.waitFor("a pane whose session runs", func(s string) bool {
		return strings.Contains(s, " · idle") || strings.Contains(s, " · working") || strings.Contains(s, " · waiting")
	})
}

// waitText waits until the screen shows text and every one of more. A
// screen is read between the writes of a frame as often as after them, so
// a test that checks more of a frame than its first line names it all
// here rather than checking what one read happened to hold.
func (tt *tmuxTerm) waitText(text string, more ...string) string {
	tt.t.Helper()
	all := append([]string{text}, more...)
	return tt.waitFor(fmt.Sprintf("%q on screen", all), func(s string) bool {
		for _, want := range all {
			if !strings.Contains(s, want) {
				return false
			}
		}
		return true
	})
}

// waitExit waits until the command running in the terminal has exited.
func (tt *tmuxTerm) waitExit() string {
	tt.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(tt.dir, tt.sock, "done")); err == nil {
			return tt.screen()
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("sandmux did not exit; screen:\n%s", tt.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkRestored checks the outer terminal is as it was: the same stty
// settings, the main screen, no mouse reporting, a visible cursor.
func (tt *tmuxTerm) checkRestored() {
	tt.t.Helper()
	before, _ := os.ReadFile(filepath.Join(tt.dir, tt.sock, "stty.before"))
	after, _ := os.ReadFile(filepath.Join(tt.dir, tt.sock, "stty.after"))
	if len(before) == 0 || string(before) != string(after) {
		tt.t.Errorf("terminal settings not restored:\nbefore: %s\nafter:  %s", before, after)
	}
	for f, want := range map[string]string{"#{alternate_on}": "0", "#{mouse_any_flag}": "0", "#{cursor_flag}": "1", "#{keypad_flag}": "0"} {
		if got := tt.format(f); got != want {
			tt.t.Errorf("%s = %q after exit, want %q", f, got, want)
		}
	}
}

// region returns the text of the pane whose title line is at (x, y), w
// wide and h tall, from a captured screen.
func region(screen string, x, y, w, h int) string {
	lines := strings.Split(screen, "\n")
	var out []string
	for i := y; i < y+h && i < len(lines); i++ {
		r := []rune(lines[i])
		if x < len(r) {
			out = append(out, strings.TrimRight(string(r[x:min(len(r), x+w)]), " "))
		}
	}
	return strings.Join(out, "\n")
}

// processesInGroup lists the live and zombie processes of group pgid.
func processesInGroup(pgid int) []string { return groupMembers(pgid) }
