package vt_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

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
	widths := []int{50, 80, 60, 33, 117}
	for name, stream := range streams {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reflowAgainstTmux(t, tmux, stream, "", widths)
		})
	}
	// The main screen under the alternate one is reflowed too: leaving it
	// shows the shell's lines whole at the new width. The screen holds
	// short lines at its top when the program enters the alternate
	// screen: tmux 3.3 breaks a line that wrapped across the top of the
	// screen then in two when the program leaves it after a resize
	// (sandmux keeps it whole; see TERMINAL.md).
	t.Run("under-alternate", func(t *testing.T) {
		t.Parallel()
		var b strings.Builder
		b.WriteString(strings.TrimSuffix(randomText(7), "$ "))
		for i := range 16 {
			fmt.Fprintf(&b, "short %d\r\n", i)
		}
		b.WriteString(strings.Repeat("\x1b[32mlong 日本語 line ", 9) + "\x1b[m\r\n$ ")
		reflowAgainstTmux(t, tmux, b.String()+"\x1b[?1049h\x1b[H\x1b[2Jalt screen\r\nmore", "\x1b[?1049l", widths)
	})
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
// them after each width, then after tail, when there is one.
func reflowAgainstTmux(t *testing.T, tmux, stream, tail string, widths []int) {
	dir := t.TempDir()
	for name, body := range map[string]string{"stream": stream, "tail": tail, "dsr.py": syncDSRPy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := privateTmux(t, tmux, "sandmux-reflow")
	// The tail waits for GO: a shell loop in the pane, not in the test.
	script := fmt.Sprintf(`D='%s'; stty -echo -opost; cat "$D/stream"; python3 "$D/dsr.py"; touch "$D/DONE"; `+
		`while [ ! -e "$D/GO" ]; do sleep 0.05; done; cat "$D/tail"; python3 "$D/dsr.py"; touch "$D/DONE2"; sleep 600`, dir)
	run("new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
		"env TERM=xterm-256color sh -c '"+strings.ReplaceAll(script, "'", `'\''`)+"'")
	run("set-option", "-g", "history-limit", "10000")
	ours := vt.New(80, 24)
	defer ours.Close()
	ours.Write(stream)
	poll(t, "tmux: DONE", func() bool { return exists(filepath.Join(dir, "DONE")) })
	compareReflow(t, "at 80 columns", run, ours, 80)
	narrowest := 80
	for _, w := range widths {
		run("resize-window", "-t", "t", "-x", fmt.Sprint(w), "-y", "24")
		ours.Resize(w, 24)
		narrowest = min(narrowest, w)
		compareReflow(t, fmt.Sprintf("at %d columns", w), run, ours, narrowest)
		if t.Failed() {
			return // the first width that differs says it all
		}
	}
	if tail == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "GO"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ours.Write(tail)
	poll(t, "tmux: DONE2", func() bool { return exists(filepath.Join(dir, "DONE2")) })
	compareReflow(t, "after the tail", run, ours, narrowest)
}

// fitWidth cuts lines (plain text or style lines) to cols columns,
// dropping a wide character the edge would cut.
func fitWidth(lines []string, cols int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		w, in := 0, false
		for _, r := range l {
			switch {
			case r == '«':
				in = true
			case r == '»':
				in = false
				b.WriteRune(r)
				continue
			}
			if !in {
				rw := runewidth.RuneWidth(r)
				if w+rw > cols {
					break
				}
				w += rw
			}
			b.WriteRune(r)
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
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

// compareReflow compares the screens; narrowest is the narrowest width
// the alternate screen had.
func compareReflow(t *testing.T, when string, run func(...string) string, s *vt.Screen, narrowest int) {
	t.Helper()
	var f vt.Frame
	s.Snapshot(&f)
	// The alternate screen is cut, not reflowed, and what a narrowing
	// cut is gone until the program redraws (as in xterm). tmux keeps
	// it: it shows it again when the screen widens, capture-pane shows a
	// wide character the edge cuts, and the cursor may be past the edge.
	fit := func(l []string) []string { return l }
	if f.Modes.AltScreen {
		fit = func(l []string) []string { return fitWidth(l, narrowest) }
	}
	screen := run("capture-pane", "-p", "-e", "-t", "t")
	diff(t, when+": screen", fit(trimLines(tmuxText(screen))), trimLines(string(vt.RenderText(nil, &f))))
	diff(t, when+": styles", plainSpaces(fit(clearedTails(tmuxStyles(screen, nil)))), plainSpaces(clearedTails(styleLines(&f))))
	var cx, cy int
	fmt.Sscanf(run("display", "-p", "-t", "t", "#{cursor_x} #{cursor_y}"), "%d %d", &cx, &cy)
	if f.Modes.AltScreen {
		cx = min(cx, narrowest-1)
	}
	if cx != f.Cursor.X || cy != f.Cursor.Y {
		t.Errorf("%s: cursor: tmux %d,%d ours %d,%d", when, cx, cy, f.Cursor.X, f.Cursor.Y)
	}
	var h vt.Frame
	s.SnapshotRange(&h, 0, s.ScrollbackLen()+f.Rows)
	if f.Modes.AltScreen {
		// tmux reflows the main screen and its history only when the
		// program leaves the alternate screen (sandmux at once): until
		// then its history is the old one, cut.
		return
	}
	hist := trimLines(run("capture-pane", "-p", "-J", "-S", "-", "-t", "t"))
	diff(t, when+": joined scrollback", hist, trimLines(string(vt.RenderJoined(nil, &h))))
}
