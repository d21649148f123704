package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/control"
)

// evalLoop is a pane that runs each line typed into it, echoing nothing
// and printing no prompt: what it shows is exactly what the test's
// scripts write.
const evalLoop = `stty -echo; printf 'READY\n'; while IFS= read -r l; do eval "$l"; done`

// stage writes a script the pane runs with ". FILE" and runs it there,
// then waits until the pane shows done, the script's last word.
func (s *ctlServer) stage(pane, script, done string) {
	s.t.Helper()
	f, err := os.CreateTemp(s.dir, "stage-*.sh")
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := f.WriteString(script + "\nprintf '" + done + "'\n"); err != nil {
		s.t.Fatal(err)
	}
	_ = f.Close()
	s.ok("send", pane, ". "+f.Name()+`\n`)
	s.waitScreen(pane, done)
}

// asciinemaCat checks that asciinema (Debian's 2.2) reads the cast;
// `asciinema cat` insists on a terminal, which script provides.
func asciinemaCat(t *testing.T, path string) {
	t.Helper()
	for _, tool := range []string{"asciinema", "script"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
				t.Fatalf("%s required (SANDMUX_REQUIRE_ALL=1): %v", tool, err)
			}
			t.Logf("SKIPPED: %s not installed, %s not checked with asciinema: %v", tool, path, err)
			return
		}
	}
	if out, err := exec.Command("script", "-qec", "asciinema cat "+path, "/dev/null").CombinedOutput(); err != nil {
		t.Fatalf("asciinema cat %s: %v\n%s", path, err, out)
	}
}

// castHeader reads a cast's header, and its events.
func castHeader(t *testing.T, path string) (asciicast.Header, []asciicast.Event) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := asciicast.Read(f)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return h, events
}

// played is the screen sandmux play leaves, at no speed, at the size
// the cast ends at.
func played(t *testing.T, path string, args ...string) string {
	t.Helper()
	h, events := castHeader(t, path)
	w, ht := h.Width, h.Height
	for _, e := range events {
		if c, r, ok := e.Size(); ok {
			w, ht = c, r // play draws at the size the cast ends at
		}
	}
	out, code := screenCmd(t, append(append([]string{"--size", fmt.Sprintf("%dx%d", w, ht)}, args...),
		"--", sandmuxBin, "play", "--speed", "0", path)...)
	if code != 0 {
		t.Fatalf("sandmux screen -- sandmux play %s: exit %d", path, code)
	}
	return out
}

// sameScreen compares what ctl screen showed with what play left.
func sameScreen(t *testing.T, what, got, want string) {
	t.Helper()
	got, want = strings.TrimRight(got, "\n"), strings.TrimRight(want, "\n")
	if got != want {
		t.Errorf("%s: the cast played ends on\n%q\nbut ctl screen showed\n%q", what, got, want)
	}
}

// The acceptance's differential: a pane recorded from the middle of its
// life, and a save-last whose window starts with colours, the alternate
// screen and a scroll region active, each pass asciinema cat and play
// back to the screen ctl screen showed when the cast was written.
func TestCtlServerRecordDifferential(t *testing.T) {
	s := startCtlServer(t, "", evalLoop, evalLoop)
	s.waitScreen("1", "READY")
	s.waitScreen("2", "READY")
	dir := t.TempDir()

	// Pane 1: recorded from mid-screen, with a scroll region set.
	s.stage("1", `printf '\033[1;31mred\033[0m \033[38;5;120mgreen\033[48;2;10;20;30m rgb\033[0m\n'; seq 1 30; printf '\033[3;12r\033[5;4H\033[7mmid\033[0m'`, "S1A")
	cast := filepath.Join(dir, "pane.cast")
	if got := strings.TrimSpace(s.ok("record", "start", "1", "-o", cast)); got != cast {
		t.Errorf("record start printed %q, want the file %q", got, cast)
	}
	if ls := s.sessions(); ls[0].Recording == nil || *ls[0].Recording != cast || ls[1].Recording != nil {
		t.Errorf("ls --json recording: %v, %v; want %q and null", ls[0].Recording, ls[1].Recording, cast)
	}
	s.stage("1", `printf '\033[12H'; seq 100 120; printf '\033[4munder\033[24m \033[?1049h\033[2J\033[H\033[44m alt \033[0m\033[3;3H日本 é'`, "S1B")
	s.ok("record", "marker", "1", "after the alternate screen")
	s.stage("1", `printf '\033[2;5r\033[5H'; seq 200 210; printf '\033[1m bold'`, "S1C")
	if got := strings.TrimSpace(s.ok("record", "stop", "1")); got != cast {
		t.Errorf("record stop printed %q, want the file %q", got, cast)
	}
	want := s.ok("screen", "--ansi", "1")
	if !strings.Contains(want, "alt") || !strings.Contains(want, "210") {
		t.Fatalf("pane 1 does not show its last stages:\n%s", want)
	}
	asciinemaCat(t, cast)
	sameScreen(t, "pane recording", played(t, cast, "--ansi"), want)
	if _, events := castHeader(t, cast); !hasMarker(events, "after the alternate screen") {
		t.Errorf("the cast has no marker %q", "after the alternate screen")
	}

	// Pane 2: the window starts after the alternate screen, a scroll
	// region and colours were set up.
	s.stage("2", `printf '\033[32mbefore\033[0m\n\033[?1049h\033[H\033[2J\033[1;33;44mtop\033[0m\033[2;8r\033[8H'; seq 1 9; printf '\033[35m'`, "S2A")
	since := time.Now()
	s.stage("2", `seq 50 60; printf 'magenta \033[0m\033[38;2;200;100;0morange\033[0m'`, "S2B")
	last := filepath.Join(dir, "last.cast")
	d := time.Since(since).Round(time.Millisecond)
	if got := strings.TrimSpace(s.ok("save-last", "2", "--duration", d.String(), "-o", last)); got != last {
		t.Errorf("save-last printed %q, want the file %q", got, last)
	}
	want = s.ok("screen", "--ansi", "2")
	if !strings.Contains(want, "orange") || strings.Contains(want, "before") {
		t.Fatalf("pane 2 does not show its alternate screen's last stage:\n%s", want)
	}
	asciinemaCat(t, last)
	got := played(t, last, "--ansi")
	sameScreen(t, "save-last", got, want)
	if _, events := castHeader(t, last); len(events) == 0 || !strings.Contains(events[0].Data, "\x1b[?1049h") || strings.Contains(events[0].Data, "50\r\n51") {
		t.Errorf("the saved window does not start from a keyframe on the alternate screen, before the last stage: %+v", events[:min(1, len(events))])
	}
}

func hasMarker(events []asciicast.Event, label string) bool {
	for _, e := range events {
		if e.Kind == asciicast.KindMarker && e.Data == label {
			return true
		}
	}
	return false
}

// A recording goes in [record] dir when no file is given; it stops when
// its session ends and a restart does not resume it; ctl events say when
// each started and stopped; pause and resume keep the cast whole.
func TestCtlServerRecordLifecycle(t *testing.T) {
	s := startCtlServer(t, "", evalLoop)
	s.waitScreen("1", "READY")
	ev := s.events()
	rec := func(detail string) func(control.Event) bool {
		return func(e control.Event) bool { return e.Kind == control.EventRecording && e.Detail == detail }
	}
	file := strings.TrimSpace(s.ok("record", "start", "1"))
	recDir := filepath.Join(s.dir, "data", "sandmux", "recordings")
	if filepath.Dir(file) != recDir || !strings.HasPrefix(filepath.Base(file), "stty-") || !strings.HasSuffix(file, ".cast") {
		t.Errorf("record start wrote %q: want <name>-<time>.cast in %s", file, recDir)
	}
	ev.next(t, "the recording's start", rec("started "+file))
	s.fails(exitFailure, "recorded already", "record", "start", "1")
	s.ok("record", "pause", "1")
	s.stage("1", `printf 'while paused\n'`, "P1")
	s.ok("record", "resume", "1")
	s.stage("1", `printf 'resumed\n'`, "R1")
	s.ok("send", "1", `exit\n`)
	ev.next(t, "the recording's stop", rec("stopped "+file+" (the session exited)"))
	if ls := s.sessions(); ls[0].Recording != nil {
		t.Errorf("an exited pane is still recorded, to %s", *ls[0].Recording)
	}
	s.ok("restart", "1")
	s.waitScreen("1", "READY")
	if ls := s.sessions(); ls[0].Recording != nil {
		t.Errorf("a restart resumed the recording, to %s", *ls[0].Recording)
	}
	s.fails(exitFailure, "not recorded", "record", "stop", "1")
	asciinemaCat(t, file)
	_, evs := castHeader(t, file)
	var out strings.Builder
	for _, e := range evs {
		out.WriteString(e.Data)
	}
	if !strings.Contains(out.String(), "resumed") {
		t.Errorf("the cast lacks what was printed after resume: %q", out.String())
	}
}

// lastRowsOff drops a screen's trailing blank lines and its last n rows
// (the status line, whose recording mark and clock move on), and trims
// each line: capture-pane and sandmux screen pad differently.
func rowsWithout(screen string, rows, drop int) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for len(lines) < rows {
		lines = append(lines, "")
	}
	lines = lines[:max(0, len(lines)-drop)]
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// A client's view, recorded across a resize, plays back at its size to
// the frame that client's terminal shows (the status line aside, whose
// clock moves on) and ends without the recording's mark; detaching stops
// the recording.
func TestCtlServerRecordView(t *testing.T) {
	need(t, "tmux")
	cfg := "[[sandbox]]\nname = \"unused\"\n[ui]\nactivity_window = \"100ms\"\nattention_after = \"1s\"\n"
	s := startCtlServer(t, cfg, evalLoop)
	s.waitScreen("1", "READY")
	term := startTermIn(t, s.dir, 80, 24, sandmuxBin+" attach -S "+s.sock)
	term.waitText("READY")
	cast := filepath.Join(t.TempDir(), "view.cast")
	if got := strings.TrimSpace(s.ok("record", "start", "--view", "-o", cast)); got != cast {
		t.Errorf("record start --view printed %q, want %q", got, cast)
	}
	term.waitText("REC VIEW")
	s.stage("1", `printf '\033[1;32mgreen\033[0m and \033[7mreverse\033[0m\n'; seq 1 5`, "V1")
	term.waitText("V1")
	term.tmux("resize-window", "-x", "100", "-y", "30")
	s.stage("1", `printf '\033[2J\033[H\033[44m after the resize \033[0m\n'; seq 10 14`, "V2")
	term.waitText("V2")
	s.ok("wait", "1", "--state", "idle", "--timeout", "30s")
	term.waitFor("the idle title", func(sc string) bool { return strings.Contains(sc, "idle") })
	s.ok("record", "stop", "--view")
	want := rowsWithout(term.screen(), 30, 1)
	asciinemaCat(t, cast)
	h, events := castHeader(t, cast)
	if h.Width != 80 || h.Height != 24 || len(events) == 0 || !strings.Contains(events[0].Data, "\x1b[2J") {
		t.Errorf("the view's cast starts %dx%d with %+v: want 80x24 and a whole frame", h.Width, h.Height, events[:min(1, len(events))])
	}
	if !hasEvent(events, asciicast.KindResize, "100x30") {
		t.Errorf("the view's cast has no resize to 100x30")
	}
	end := played(t, cast)
	got := rowsWithout(end, 30, 1)
	if got != want {
		t.Errorf("the view's cast plays back to\n%s\nbut the client shows\n%s", got, want)
	}
	// The cast ends on the frame drawn after the stop, not on one that
	// still shows the recording's mark.
	if strings.Contains(end, "REC VIEW") {
		t.Errorf("the view's cast ends on a frame showing REC VIEW:\n%s", end)
	}

	// Detaching ends a view recording, not a pane's.
	cast2 := filepath.Join(t.TempDir(), "view2.cast")
	paneCast := filepath.Join(t.TempDir(), "pane.cast")
	s.ok("record", "start", "--view", "-o", cast2)
	s.ok("record", "start", "1", "-o", paneCast)
	term.waitText("REC VIEW")
	term.keys("C-b", "d")
	term.waitExit()
	s.stage("1", `printf 'after the detach\n'`, "V3")
	if ls := s.sessions(); ls[0].Recording == nil || *ls[0].Recording != paneCast {
		t.Errorf("after the client detached, pane 1 is recorded to %v, want %s", ls[0].Recording, paneCast)
	}
	s.ok("record", "stop", "1")
	if data, err := os.ReadFile(paneCast); err != nil || !strings.Contains(string(data), "after the detach") {
		t.Errorf("the pane's cast (%v) lacks what came after the client detached", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, errOut, code := s.ctl("record", "stop", "--view")
		if code != 0 && strings.Contains(errOut, "no client") {
			break // the client went, and its recording with it
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the client detached, record stop --view: exit %d, %s", code, errOut)
		}
		time.Sleep(20 * time.Millisecond)
	}
	asciinemaCat(t, cast2)
}

func hasEvent(events []asciicast.Event, kind, data string) bool {
	for _, e := range events {
		if e.Kind == kind && e.Data == data {
			return true
		}
	}
	return false
}

// A quit stops every recording and waits until each is written: the
// cast ends with the last output, and the summary says nothing failed.
func TestCtlServerRecordQuitFlushes(t *testing.T) {
	s := startCtlServer(t, "", evalLoop)
	s.waitScreen("1", "READY")
	cast := filepath.Join(t.TempDir(), "quit.cast")
	s.ok("record", "start", "1", "-o", cast)
	s.stage("1", `i=0; while [ $i -lt 2000 ]; do printf 'line %d of the flood\n' $i; i=$((i+1)); done; printf 'LAST-WORDS'`, "LAST-WORDS")
	s.ok("quit")
	s.waitExit()
	asciinemaCat(t, cast)
	_, events := castHeader(t, cast)
	var out strings.Builder
	for _, e := range events {
		out.WriteString(e.Data)
	}
	if !strings.Contains(out.String(), "LAST-WORDS") {
		t.Errorf("the cast written before the quit lacks the last output (%d events)", len(events))
	}
	if sum := s.summary(); strings.Contains(sum, "recording") {
		t.Errorf("the summary reports a recording failed:\n%s", sum)
	}
}

// ringFiles lists the files the server holds open in dir that no longer
// have a name there.
func (s *ctlServer) ringFiles(dir string) []string {
	s.t.Helper()
	fds := "/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd/"
	ents, err := os.ReadDir(fds)
	if err != nil {
		s.t.Fatalf("list the server's files: %v", err)
	}
	var out []string
	for _, e := range ents {
		target, err := os.Readlink(fds + e.Name())
		if err == nil && strings.HasPrefix(target, dir+"/") && strings.HasSuffix(target, " (deleted)") {
			out = append(out, target)
		}
	}
	return out
}

// A pane's ring keeps its sealed segments in a file with no name in the
// state directory ([record] spill, on by default): the server holds it
// open, nothing in the directory names it, and save-last reads the
// window back from it, to the screen ctl screen shows.
func TestCtlServerSaveLastFromTheRingsFile(t *testing.T) {
	s := startCtlServer(t, "", evalLoop)
	s.waitScreen("1", "READY")
	since := time.Now()
	// Some 400 KB: the ring seals a segment at each 256 KiB of output.
	s.stage("1", `i=0; while [ $i -lt 40 ]; do printf '\033[3%dm' $((i % 8)); seq $((i * 2000)) $((i * 2000 + 1500)); i=$((i + 1)); done; printf '\033[0;1mtail'`, "FILLED")
	state := filepath.Join(s.dir, "state", "sandmux")
	if files := s.ringFiles(state); len(files) != 1 {
		t.Fatalf("the server holds %d unnamed files in %s, want the ring's one: %q", len(files), state, files)
	}
	ents, err := os.ReadDir(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".ring") {
			t.Errorf("the state directory names a ring's file: %s", e.Name())
		}
	}
	last := filepath.Join(s.dir, "last.cast")
	s.ok("save-last", "1", "--duration", (time.Since(since) + time.Minute).Round(time.Second).String(), "-o", last)
	want := s.ok("screen", "--ansi", "1")
	if !strings.Contains(want, "79500") || !strings.Contains(want, "tail") {
		t.Fatalf("the pane does not show the end of its output:\n%s", want)
	}
	asciinemaCat(t, last)
	sameScreen(t, "save-last from the ring's file", played(t, last, "--ansi"), want)
	if h, _ := castHeader(t, last); h.Timestamp > since.Unix() {
		t.Errorf("the saved window starts at %d, after the output began (%d): it lost the segments in the file", h.Timestamp, since.Unix())
	}
}
