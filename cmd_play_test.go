package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/creack/pty"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/asciicast/casttest"
	"github.com/sandmux/sandmux/play"
	"github.com/sandmux/sandmux/session/vt"
)

// writeCastFile writes a generated recording into the test's directory.
func writeCastFile(t *testing.T, cols, rows int, events ...casttest.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.cast")
	if err := os.WriteFile(path, casttest.Bytes(t, cols, rows, events...), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// playTerm is sandmux play running on a real PTY, as on a user's terminal.
type playTerm struct {
	ptmx, tty *os.File
	cmd       *exec.Cmd
	exited    chan error

	mu      sync.Mutex
	out     bytes.Buffer
	changed chan struct{} // one slot: the output grew
}

const playTermCols, playTermRows = 30, 8

func startPlayTerm(t *testing.T, args ...string) *playTerm {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: playTermCols, Rows: playTermRows}); err != nil {
		t.Fatal(err)
	}
	p := &playTerm{ptmx: ptmx, tty: tty, exited: make(chan error, 1), changed: make(chan struct{}, 1)}
	p.cmd = exec.Command(sandmuxBin, append([]string{"play"}, args...)...)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = tty, tty, tty
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var reader sync.WaitGroup
	reader.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return // EIO once the test closes its side of the terminal
			}
		}
	})
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill() // Best effort: it may have exited.
		<-p.exited
		_ = tty.Close() // Best effort: test teardown.
		reader.Wait()
		_ = ptmx.Close() // Best effort: test teardown.
	})
	return p
}

func (p *playTerm) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits, at most 10 s, until the terminal showed s.
func (p *playTerm) waitFor(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for !strings.Contains(p.output(), s) {
		select {
		case <-p.changed:
		case <-timeout:
			t.Fatalf("the terminal never showed %q; it showed %q", s, p.output())
		}
	}
}

func (p *playTerm) typeKeys(t *testing.T, keys string) {
	t.Helper()
	if _, err := p.ptmx.Write([]byte(keys)); err != nil {
		t.Fatal(err)
	}
}

// exitCode waits, at most 10 s, for play to exit.
func (p *playTerm) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return exitErr.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatalf("play did not exit; the terminal showed %q", p.output())
		return -1
	}
}

func (p *playTerm) state(t *testing.T) term.State {
	t.Helper()
	st, err := term.GetState(p.tty.Fd())
	if err != nil {
		t.Fatal(err)
	}
	return *st
}

// A long cast played on a real terminal: raw while playing; space pauses,
// a step plays the next event at once (an hour early), a q inside the
// terminal's answer to a query is no key, q quits and says where; the
// terminal's modes are restored after.
func TestPlayKeysOnTerminal(t *testing.T) {
	cast := writeCastFile(t, playTermCols, playTermRows,
		casttest.Event{At: 100 * time.Millisecond, Kind: "o", Data: "\x1b[?2004h\x1b[?1000hfirst\r\n"},
		casttest.Event{At: 500 * time.Millisecond, Kind: "m", Data: "intro \x1b[31mdone"},
		casttest.Event{At: time.Hour, Kind: "o", Data: "second\r\n"},
		casttest.Event{At: 2 * time.Hour, Kind: "o", Data: "third\r\n"})
	p := startPlayTerm(t, cast)
	before := p.state(t)
	p.waitFor(t, "first")
	if p.state(t) == before {
		t.Error("the terminal is not raw while playing")
	}
	p.typeKeys(t, " ")
	p.typeKeys(t, "\x1bP1$r2 q\x1b\\") // a DECRQSS answer, with a q in it
	p.typeKeys(t, ".")
	p.waitFor(t, "second")
	p.typeKeys(t, "q")
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
	out := p.output()
	if strings.Contains(out, "third") {
		t.Errorf("played past the quit: %q", out)
	}
	if !strings.Contains(out, play.ResetInputModes) {
		t.Errorf("the input modes the cast set were not reset: %q", out)
	}
	note := out[strings.Index(out, play.ResetInputModes)+len(play.ResetInputModes):]
	if want := `sandmux play: stopped at 1h0m0s (after the marker "intro \x1b[31mdone")`; !strings.Contains(note, want) {
		t.Errorf("after the cast: %q, want %q", note, want)
	}
	checkSafe(t, "the note after a quit", strings.TrimSpace(strings.ReplaceAll(note, "\r\n", "\n")))
	if p.state(t) != before {
		t.Error("the terminal's modes were not restored")
	}
}

// ctrl+c quits, and SIGTERM or SIGHUP stop play with 128+N; the terminal
// is restored every way.
func TestPlayStopsOnTerminal(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(*playTerm)
		code int
	}{
		{"ctrl+c", func(p *playTerm) { p.typeKeys(t, "\x03") }, 0},
		{"sigterm", func(p *playTerm) { _ = p.cmd.Process.Signal(syscall.SIGTERM) }, 128 + int(syscall.SIGTERM)},
		{"sighup", func(p *playTerm) { _ = p.cmd.Process.Signal(syscall.SIGHUP) }, 128 + int(syscall.SIGHUP)},
	} {
		t.Run(c.name, func(t *testing.T) {
			cast := writeCastFile(t, playTermCols, playTermRows, casttest.Event{At: 0, Kind: "o", Data: "\x1b[?1lfirst"}, casttest.Event{At: time.Hour, Kind: "o", Data: "never"})
			p := startPlayTerm(t, "--speed", "1", cast)
			before := p.state(t)
			p.waitFor(t, "first")
			c.stop(p)
			if code := p.exitCode(t); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if p.state(t) != before {
				t.Error("the terminal's modes were not restored")
			}
			if strings.Contains(p.output(), "never") {
				t.Errorf("played on after the stop: %q", p.output())
			}
		})
	}
}

// castFixtures are recordings whose final screens play must reproduce:
// what a real program draws, in a 30x8 terminal.
func castFixtures() map[string][]string {
	var long []string
	for i := range 3000 {
		long = append(long, "\x1b[3"+string(rune('1'+i%7))+"mline "+strings.Repeat("#", i%20)+"\x1b[0m\r\n")
	}
	return map[string][]string{
		"colours, region, wide": {
			"\x1b[1;31mred\x1b[0m \x1b[38;2;10;20;30;48;5;200mtrue\x1b[0m plain\r\n",
			"\x1b[2;5r\x1b[2Hregion\r\n1\r\n2\r\n3\r\n4\r\n5\x1b[r",
			"\x1b[7;1H日本語 wide é\x1b[4mu\x1b[0m",
		},
		"ends on the alternate screen": {
			"main screen\r\n",
			"\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?2004h\x1b[H\x1b[2J\x1b[44m  editor  \x1b[0m",
			"\x1b[3;5Htyped",
		},
		"split sequences": {"\x1b[", "3", "2mgreen\x1b", "[0m \xe6\x97", "\xa5"},
		"long":            long,
	}
}

// wantScreenOf is the screen the chunks leave on a terminal of that size,
// as sandmux screen --ansi prints it.
func wantScreenOf(chunks []string, cols, rows int) string {
	s := vt.New(cols, rows)
	defer s.Close()
	for _, c := range chunks {
		s.Write(c)
	}
	return string(s.Dump(nil, false, true)) + "\n"
}

// Played with no pauses inside sandmux screen, every fixture ends on the
// screen its output draws; resizes, markers and input draw nothing, and
// flags may follow the file.
func TestPlaySpeedZeroEndScreen(t *testing.T) {
	for name, chunks := range castFixtures() {
		t.Run(name, func(t *testing.T) {
			// Recorded at 20x5 and resized to the terminal's 30x8: no note.
			events := []casttest.Event{{At: 0, Kind: "r", Data: "30x8"}, {At: 0, Kind: "m", Data: "start"}}
			for i, c := range chunks {
				events = append(events, casttest.Event{At: time.Duration(i) * time.Second, Kind: "o", Data: c}, casttest.Event{At: time.Duration(i) * time.Second, Kind: "i", Data: "x"})
			}
			cast := writeCastFile(t, 20, 5, events...)
			// Broken UTF-8 across events is what the Writer escapes;
			// compare with what the file holds.
			chunks = outputOf(t, cast)
			out, code := screenCmd(t, "--ansi", "--size", "30x8", "--", sandmuxBin, "play", cast, "--speed", "0")
			if want := wantScreenOf(chunks, 30, 8); out != want || code != 0 {
				t.Errorf("exit %d, screen\n%q\nwant\n%q", code, out, want)
			}
		})
	}
}

// outputOf is the output events of a recording.
func outputOf(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := asciicast.NewDecoder(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		e, err := dec.Next()
		if err != nil {
			break
		}
		if e.Kind == "o" {
			out = append(out, e.Data)
		}
	}
	return out
}

// Without a terminal, play writes the output as it is, nothing added.
func TestPlayWithoutTerminal(t *testing.T) {
	chunks := castFixtures()["colours, region, wide"]
	var events []casttest.Event
	for _, c := range chunks {
		events = append(events, casttest.Event{At: 0, Kind: "o", Data: c})
	}
	cmd := exec.Command(sandmuxBin, "play", "--speed", "0", writeCastFile(t, 30, 8, events...))
	out, err := cmd.Output()
	if err != nil || string(out) != strings.Join(chunks, "") {
		t.Errorf("play = %q, %v; want the output as recorded", out, err)
	}
}

// A broken or missing file and bad flags fail with what to do, file names
// escaped; a cast that breaks midway plays up to the break.
func TestPlayErrors(t *testing.T) {
	dir := t.TempDir()
	hostile := filepath.Join(dir, "evil\x1b]0;owned\x07.cast")
	broken := filepath.Join(dir, "broken.cast")
	if err := os.WriteFile(broken, []byte(`{"version": 2, "width": 30, "height": 8}`+"\n"+`[0, "o", "played"]`+"\n"+`[1, "o"]`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostile, []byte("not a cast\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{[]string{filepath.Join(dir, "missing.cast")}, exitFailure, "", "no such file or directory (give the path of an asciicast v2 recording)"},
		{[]string{dir}, exitFailure, "", "not a regular file"},
		{[]string{hostile}, exitFailure, "", "read asciicast header (line 1)"},
		{[]string{"--speed", "0", broken}, exitFailure, "played", "read asciicast line 3: an event has 3 elements"},
		{[]string{}, exitUsage, "", "usage: sandmux play"},
		{[]string{broken, broken}, exitUsage, "", "usage: sandmux play"},
		{[]string{"--speed", "-1", broken}, exitUsage, "", "want a number from 0 to 1000"},
		{[]string{"--idle-limit", "soon", broken}, exitUsage, "", "want a number"},
		{[]string{"--bogus\x1b[2J", broken}, exitUsage, "", "flag provided but not defined"},
	} {
		cmd := exec.Command(sandmuxBin, append([]string{"play"}, c.args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		}
		if code != c.code || stdout.String() != c.out || !strings.Contains(stderr.String(), c.inErr) {
			t.Errorf("play %q: exit %d, out %q, err %q; want exit %d, out %q, an error saying %q", c.args, code, stdout.String(), stderr.String(), c.code, c.out, c.inErr)
		}
		checkSafe(t, "play's error", strings.ReplaceAll(stderr.String(), "\r\n", "\n"))
	}
}

// panicWriter is a terminal whose write panics, as a bug would; it notes
// the terminal's modes first.
type panicWriter struct {
	tty     *os.File
	playing *term.State
}

func (w *panicWriter) Write([]byte) (int, error) {
	w.playing, _ = term.GetState(w.tty.Fd())
	panic("write failed badly")
}

// A panic while playing still restores the terminal (and stops the key
// reader) on its way out.
func TestPlayRestoresTerminalOnPanic(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := term.GetState(tty.Fd())
	if err != nil {
		t.Fatal(err)
	}
	cast := writeCastFile(t, 30, 8, casttest.Event{At: 0, Kind: "o", Data: "boom"})
	var stderr bytes.Buffer
	w := &panicWriter{tty: tty}
	func() {
		defer func() {
			if r := recover(); r != "write failed badly" {
				t.Errorf("recovered %v, want the writer's panic", r)
			}
		}()
		runPlay(t.Context(), []string{"--speed", "0", cast}, stdio{in: tty, out: w, err: &stderr})
	}()
	if w.playing == nil || *w.playing == *before {
		t.Error("the terminal was not raw while playing")
	}
	if after, err := term.GetState(tty.Fd()); err != nil || *after != *before {
		t.Errorf("after the panic the terminal is %+v (%v), want it restored to %+v", after, err, before)
	}
}
