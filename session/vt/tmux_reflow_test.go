package vt_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/session/vt"
)

// TestReflowMatchesTmux feeds the same bytes to a Screen and to a tmux
// pane, then takes both through the same widths (shrink, grow back,
// shrink twice, grow past the original): after each, the screen (text
// and styles), the cursor and the joined scrollback (capture-pane -J -S
// -) must be tmux's. The streams are the real programs' output of the
// replay corpus and random text with long lines, wide characters and
// styles.
func TestReflowMatchesTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("differential tests run tmux")
	}
	tmux := requireTmux(t)
	streams := map[string]string{}
	paths, err := filepath.Glob("testdata/replay/*.vt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no replay corpus in testdata/replay: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		streams[strings.TrimSuffix(filepath.Base(p), ".vt")] = string(data)
	}
	for seed := range 6 {
		streams[fmt.Sprintf("random%d", seed)] = randomText(uint64(seed))
	}
	for name, stream := range streams {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reflowAgainstTmux(t, tmux, stream, []int{50, 80, 60, 33, 117})
		})
	}
}

// randomText is lines of words, wide characters and styles, many longer
// than the screen, ending with a prompt. Lines end with the pen reset and
// no trailing blanks (see TERMINAL.md: tmux keeps written blanks as
// content, sandmux does not).
func randomText(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 24))
	words := []string{"alpha", "beta", "x", "日本語", "中文", "🎉", "build", "ok", "→", "résumé", "0123456789", "ｗｉｄｅ"}
	sgr := []string{"\x1b[31m", "\x1b[1;32m", "\x1b[4m", "\x1b[44m", "\x1b[38;5;208m", "\x1b[7m", "\x1b[m", "\x1b[3;38;2;10;200;30m"}
	var b strings.Builder
	for range 40 + r.IntN(30) {
		n := r.IntN(60)
		if r.IntN(4) == 0 {
			n = 0 // an empty line
		}
		for i := range n {
			if r.IntN(5) == 0 {
				b.WriteString(sgr[r.IntN(len(sgr))])
			}
			b.WriteString(words[r.IntN(len(words))])
			if i+1 < n {
				b.WriteByte(' ')
			}
		}
		b.WriteString("\x1b[m\r\n")
	}
	b.WriteString("$ ")
	return b.String()
}

// reflowAgainstTmux runs stream in both terminals at 80x24 and compares
// them after each width.
func reflowAgainstTmux(t *testing.T, tmux, stream string, widths []int) {
	dir := t.TempDir()
	for name, body := range map[string]string{"stream": stream, "dsr.py": syncDSRPy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sock := fmt.Sprintf("sandmux-reflow-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	run := func(args ...string) string {
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
	t.Cleanup(func() {
		// Best effort: the server may have exited with its last pane.
		_ = exec.Command(tmux, "-L", sock, "kill-server").Run()
	})
	script := fmt.Sprintf(`D='%s'; stty -echo -opost; cat "$D/stream"; python3 "$D/dsr.py"; touch "$D/DONE"; sleep 600`, dir)
	run("new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
		"env TERM=xterm-256color sh -c '"+strings.ReplaceAll(script, "'", `'\''`)+"'")
	run("set-option", "-g", "history-limit", "10000")
	ours := vt.New(80, 24)
	defer ours.Close()
	ours.Write(stream)
	poll(t, "tmux: DONE", func() bool { return exists(filepath.Join(dir, "DONE")) })
	compareReflow(t, "at 80 columns", run, ours)
	for _, w := range widths {
		run("resize-window", "-t", "t", "-x", fmt.Sprint(w), "-y", "24")
		ours.Resize(w, 24)
		compareReflow(t, fmt.Sprintf("at %d columns", w), run, ours)
		if t.Failed() {
			return // the first width that differs says it all
		}
	}
}

// clearedTails drops the blanks at the end of style lines: capture-pane
// shows only the cells a program wrote, not those an erase or a scroll
// cleared in a background colour, which tmux shows all the same.
func clearedTails(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if j := strings.LastIndex(l, "«"); j >= 0 {
			if k := strings.Index(l[j:], "»"); k >= 0 && strings.TrimLeft(l[j+k+len("»"):], " ") == "" {
				l = l[:j]
			}
		}
		out[i] = l
	}
	return out
}

// plainSpaces gives the spaces whose style draws nothing on a space (a
// foreground, bold, italic, blink) the default style: the scrollback
// keeps the blanks at the end of a wrapped row, not their pens.
func plainSpaces(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		last := ""
		for _, run := range strings.Split(l, "«")[1:] {
			st, text, _ := strings.Cut(run, "»")
			for _, r := range text {
				cst := st
				if parts := strings.SplitN(st, "/", 3); r == ' ' && parts[1] == "d" && !strings.ContainsAny(parts[2], "ursoh") {
					cst = "d/d/"
				}
				if cst != last {
					b.WriteString("«" + cst + "»")
					last = cst
				}
				b.WriteRune(r)
			}
		}
		out[i] = strings.TrimSuffix(b.String(), "«d/d/»")
	}
	return out
}

func compareReflow(t *testing.T, when string, run func(...string) string, s *vt.Screen) {
	t.Helper()
	var f vt.Frame
	s.Snapshot(&f)
	screen := run("capture-pane", "-p", "-e", "-t", "t")
	diff(t, when+": screen", trimLines(tmuxText(screen)), trimLines(string(vt.RenderText(nil, &f))))
	diff(t, when+": styles", plainSpaces(clearedTails(tmuxStyles(screen, nil))), plainSpaces(clearedTails(styleLines(&f))))
	var cx, cy int
	fmt.Sscanf(run("display", "-p", "-t", "t", "#{cursor_x} #{cursor_y}"), "%d %d", &cx, &cy)
	if cx != f.Cursor.X || cy != f.Cursor.Y {
		t.Errorf("%s: cursor: tmux %d,%d ours %d,%d", when, cx, cy, f.Cursor.X, f.Cursor.Y)
	}
	var h vt.Frame
	s.SnapshotRange(&h, 0, s.ScrollbackLen()+f.Rows)
	hist := run("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
	diff(t, when+": joined scrollback", trimLines(hist), trimLines(string(vt.RenderJoined(nil, &h))))
}
