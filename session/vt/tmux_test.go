package vt_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

// Differential tests: each case runs the same small program (a) in a real
// PTY whose output goes through the session collector into a vt.Screen, and
// (b) in a private tmux server; then the screens are compared. tmux is the
// reference where it behaves like xterm; where it does not, the case says
// so and the comparison follows xterm.
//
// Both sides end the program with a CPR round trip (syncScript): the answer
// comes back only after the terminal parsed everything before the query, so
// when DONE appears the screen is final, with no sleeps.

const syncPy = `import os, termios, tty
fd = os.open("/dev/tty", os.O_RDWR)
old = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(fd, b"\x1b[6n")
buf = b""
while not buf.endswith(b"R"):
    buf += os.read(fd, 1)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
`

// diffCase is one differential case.
type diffCase struct {
	name       string
	cols, rows int
	script     string            // sh code; $D is the case's directory
	files      map[string]string // written into $D first
	styles     bool              // compare colours and attributes (capture-pane -e)
	history    bool              // compare scrollback too (capture-pane -S -)
	cursor     bool              // compare the cursor position
	title      bool              // compare the title
	resize     [2]int            // after waitFor shows, resize to this (cols, rows)
	waitFor    string            // text to wait for before resizing
	// tmuxFix rewrites tmux's text where tmux differs from xterm only in
	// how it stores text; note says how.
	tmuxFix func(string) string
	note    string
	// xterm, when set, is the screen xterm shows where tmux shows
	// another: ours is compared with it and tmux's is logged.
	xterm []string
	// xtermStyles, when set, is the styles xterm shows where tmux shows
	// others, as xterm above.
	xtermStyles []string
	// xtermCursor, when set, is where the cursor is where tmux puts it
	// elsewhere.
	xtermCursor *[2]int
}

// screenState is what is compared.
type screenState struct {
	text    []string
	styles  []string
	history []string
	cx, cy  int
	title   string
}

func requireTmux(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err == nil {
		if _, err = exec.LookPath("python3"); err == nil {
			return path
		}
	}
	if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
		t.Fatalf("differential tests need tmux and python3: %v", err)
	}
	t.Skipf("SKIPPING DIFFERENTIAL TESTS AGAINST TMUX: %v (install tmux and python3; SANDMUX_REQUIRE_ALL=1 makes this fatal)", err)
	return ""
}

// caseDir writes the case's files and returns the directory.
func caseDir(t *testing.T, c diffCase) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"sync.py": syncPy}
	for k, v := range c.files {
		files[k] = v
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// command is the program both sides run: the case, the CPR round trip,
// DONE, then staying alive so the screen stays as it is.
func command(c diffCase, dir string) string {
	return fmt.Sprintf("D='%s'; export D; %s\npython3 \"$D/sync.py\"; touch \"$D/DONE\"; sleep 60", dir, c.script)
}

// poll calls f until it returns true or the deadline passes.
func poll(t *testing.T, what string, f func() bool) {
	t.Helper()
	if !pollOK(f) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func pollOK(f func() bool) bool {
	deadline := time.Now().Add(30 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
	return true
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runPTY runs the case in a PTY feeding a Screen and returns its state.
func runPTY(t *testing.T, c diffCase) screenState {
	t.Helper()
	dir := caseDir(t, c)
	cmd := exec.Command("sh", "-c", command(c, dir))
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "LC_ALL=C.UTF-8")
	ptmx := startPTY(t, cmd, c.cols, c.rows)
	scr := vt.New(c.cols, c.rows, vt.WithReplies(ptmx))
	col := session.NewCollector(64 << 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var fed atomic.Int64
	wg.Go(func() { // reader
		defer col.Close()
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 && col.Push(ctx, buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	})
	wg.Go(func() { // consumer
		for {
			text, closed, err := col.Collect(ctx, 2*time.Millisecond)
			if text != "" {
				scr.Write(text)
				fed.Add(1)
			}
			if closed || err != nil {
				return
			}
		}
	})
	t.Cleanup(func() {
		// Best effort: the group may already be gone.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		ptmx.Close()
		cancel()
		wg.Wait()
		scr.Close()
	})
	if c.waitFor != "" {
		poll(t, "pty: "+c.waitFor, func() bool { return strings.Contains(screenText(scr), c.waitFor) })
		scr.Resize(c.resize[0], c.resize[1])
		if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(c.resize[0]), Rows: uint16(c.resize[1])}); err != nil {
			t.Fatal(err)
		}
	}
	if !pollOK(func() bool { return exists(filepath.Join(dir, "DONE")) }) {
		t.Fatalf("timed out waiting for the program in the pty; screen:\n%s", screenText(scr))
	}
	return screenOf(scr)
}

func screenText(s *vt.Screen) string {
	var f vt.Frame
	s.Snapshot(&f)
	return string(vt.RenderText(nil, &f))
}

func screenOf(s *vt.Screen) screenState {
	var f vt.Frame
	s.Snapshot(&f)
	st := screenState{text: trimLines(string(vt.RenderText(nil, &f))), cx: f.Cursor.X, cy: f.Cursor.Y, title: f.Title}
	st.styles = styleLines(&f)
	var h vt.Frame
	s.SnapshotRange(&h, 0, s.ScrollbackLen()+f.Rows)
	st.history = trimLines(string(vt.RenderText(nil, &h)))
	return st
}

// privateTmux returns a runner of tmux commands on a server of the
// test's own (named for prefix, the process and the test), even when the
// tests run inside tmux, and kills that server when the test ends. A
// command that fails fails the test.
func privateTmux(t *testing.T, tmux, prefix string) func(args ...string) string {
	sock := fmt.Sprintf("%s-%d-%s", prefix, os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	t.Cleanup(func() {
		// Best effort: the server may have exited with its last pane.
		_ = exec.Command(tmux, "-L", sock, "kill-server").Run()
	})
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(withoutTMUX(os.Environ()), "LC_ALL=C.UTF-8")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, stderr.String())
		}
		return string(out)
	}
}

// runTmux runs the case in a private tmux server and returns its state.
func runTmux(t *testing.T, tmux string, c diffCase) screenState {
	t.Helper()
	dir := caseDir(t, c)
	run := privateTmux(t, tmux, "sandmux-vt")
	run("new-session", "-d", "-s", "t", "-x", fmt.Sprint(c.cols), "-y", fmt.Sprint(c.rows),
		"env TERM=xterm-256color sh -c '"+strings.ReplaceAll(command(c, dir), "'", `'\''`)+"'")
	if c.waitFor != "" {
		poll(t, "tmux: "+c.waitFor, func() bool { return strings.Contains(run("capture-pane", "-p", "-t", "t"), c.waitFor) })
		run("resize-window", "-t", "t", "-x", fmt.Sprint(c.resize[0]), "-y", fmt.Sprint(c.resize[1]))
	}
	poll(t, "tmux: DONE", func() bool { return exists(filepath.Join(dir, "DONE")) })
	st := screenState{}
	// capture-pane -p shows line-drawing cells as the letters that
	// select them; -e brackets those with SO/SI, so read -e and map them.
	text := tmuxText(run("capture-pane", "-p", "-e", "-t", "t"))
	if c.tmuxFix != nil {
		text = c.tmuxFix(text)
	}
	st.text = trimLines(text)
	st.styles = tmuxStyles(run("capture-pane", "-p", "-e", "-t", "t"), c.tmuxFix)
	hist := tmuxText(run("capture-pane", "-p", "-e", "-S", "-", "-t", "t"))
	if c.tmuxFix != nil {
		hist = c.tmuxFix(hist)
	}
	st.history = trimLines(hist)
	var title string
	fmt.Sscanf(run("display", "-p", "-t", "t", "#{cursor_x} #{cursor_y}"), "%d %d", &st.cx, &st.cy)
	title = strings.TrimSuffix(run("display", "-p", "-t", "t", "#{pane_title}"), "\n")
	st.title = title
	return st
}

func withoutTMUX(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "TMUX=") && !strings.HasPrefix(e, "TMUX_PANE=") {
			out = append(out, e)
		}
	}
	return out
}

// trimLines splits text into rows and drops trailing empty rows.
func trimLines(s string) []string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for len(l) > 0 && strings.TrimRight(l[len(l)-1], " ") == "" {
		l = l[:len(l)-1]
	}
	for i := range l {
		l[i] = strings.TrimRight(l[i], " ")
	}
	return l
}

func diff(t *testing.T, what string, tmux, ours []string) {
	t.Helper()
	if strings.Join(tmux, "\n") == strings.Join(ours, "\n") {
		return
	}
	var b strings.Builder
	for i := 0; i < max(len(tmux), len(ours)); i++ {
		var a, o string
		if i < len(tmux) {
			a = tmux[i]
		}
		if i < len(ours) {
			o = ours[i]
		}
		mark := " "
		if a != o {
			mark = "≠"
		}
		fmt.Fprintf(&b, "%s %3d tmux %q\n       ours %q\n", mark, i, a, o)
	}
	t.Errorf("%s differs:\n%s", what, b.String())
}

func runDiffCases(t *testing.T, cases []diffCase) {
	tmux := requireTmux(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.note != "" {
				t.Logf("tmux differs from xterm: %s", c.note)
			}
			ours := runPTY(t, c)
			ref := runTmux(t, tmux, c)
			if c.xterm != nil {
				t.Logf("tmux shows %q; xterm and sandmux %q", ref.text, c.xterm)
				ref.text = c.xterm
			}
			diff(t, "screen", ref.text, ours.text)
			if c.xtermStyles != nil {
				t.Logf("tmux shows styles %q; xterm and sandmux %q", ref.styles, c.xtermStyles)
				ref.styles = c.xtermStyles
			}
			if c.styles {
				diff(t, "styles", ref.styles, ours.styles)
			}
			if c.history {
				diff(t, "history", ref.history, ours.history)
			}
			if c.xtermCursor != nil {
				t.Logf("tmux puts the cursor at %d,%d; sandmux at %v", ref.cx, ref.cy, *c.xtermCursor)
				ref.cx, ref.cy = c.xtermCursor[0], c.xtermCursor[1]
			}
			if c.cursor && (ref.cx != ours.cx || ref.cy != ours.cy) {
				t.Errorf("cursor: tmux %d,%d ours %d,%d", ref.cx, ref.cy, ours.cx, ours.cy)
			}
			if c.title && ref.title != ours.title {
				t.Errorf("title: tmux %q ours %q", ref.title, ours.title)
			}
		})
	}
}
