package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// playedTerm is a terminal the test plays: sandmux runs on a PTY whose
// other end is the test, which reads what sandmux writes, answers its
// queries as a real terminal would, and types bytes as that terminal
// would send them.
type playedTerm struct {
	t    *testing.T
	dir  string
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

// startPlayed runs sandmux with these panes on a played terminal; the
// server it starts is stopped at the end.
func startPlayed(t *testing.T, panes ...string) *playedTerm {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() { stopServer(t, dir) })
	return playCommand(t, dir, append([]string{sandmuxBin}, panes...))
}

// playCommand runs argv on a played terminal, in isolatedEnv(dir).
func playCommand(t *testing.T, dir string, argv []string) *playedTerm {
	t.Helper()
	p := &playedTerm{t: t, dir: dir, done: make(chan struct{})}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = isolatedEnv(p.dir)
	ptmx, err := pty.StartWithAttrs(cmd, &pty.Winsize{Cols: 120, Rows: 40}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		t.Fatalf("sandmux on a PTY: %v", err)
	}
	p.ptmx = ptmx
	go func() { // owned: the cleanup waits for it
		defer close(p.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return // EIO once sandmux is gone
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGHUP) // the terminal closed: the client detaches
		_ = ptmx.Close()
		<-p.done
		if err := cmd.Wait(); err != nil && !errors.As(err, new(*exec.ExitError)) {
			t.Errorf("the client: %v", err)
		}
	})
	return p
}

// waitOutput waits until sandmux wrote want to the terminal.
func (p *playedTerm) waitOutput(what, want string) {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p.mu.Lock()
		ok := strings.Contains(p.out.String(), want)
		p.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.t.Fatalf("sandmux never wrote %s (%q); it wrote:\n%q", what, want, tail(p.out.String(), 2000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitOutputCount waits until sandmux wrote want count times.
func (p *playedTerm) waitOutputCount(what, want string, count int) {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p.mu.Lock()
		n := strings.Count(p.out.String(), want)
		p.mu.Unlock()
		if n >= count {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("sandmux never wrote %s (%q %d times)", what, want, count)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *playedTerm) send(b string) {
	p.t.Helper()
	if _, err := p.ptmx.WriteString(b); err != nil {
		p.t.Fatalf("type %q: %v", b, err)
	}
}

// waitScreenCount waits until pane n's screen holds want count times.
func (p *playedTerm) waitScreenCount(n, want string, count int) string {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := ctlIn(p.t, p.dir, "screen", n)
		if strings.Count(s, want) >= count {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("pane %s never showed %q %d times; it shows:\n%s", n, want, count, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// showKey is kitty's own key viewer: it pushes every kitty flag (31) and
// prints each key it reads, as kitty names it.
const showKey = "kitty +kitten show_key -m kitty"

// bgProbe is a program that, once a line is typed, asks its terminal for
// the background colour (OSC 11) and prints the answer; then it asks for
// colour-scheme notifications (mode 2031) and prints the first it gets.
const bgProbe = `import os, sys, termios, tty
sys.stdin.readline()
tty.setraw(0)
def read_until(ends):
    buf = b""
    while not buf.endswith(ends):
        buf += os.read(0, 1)
    return buf
os.write(1, b"\x1b]11;?\x1b\\")
bg = read_until(b"\x1b\\")[5:-2]
os.write(1, b"\x1b[?2031h")
os.write(1, b"BG=" + bg + b"\r\n")
os.write(1, b"SCHEME=" + read_until(b"n")[7:-1] + b"\r\n")
os.read(0, 1)
`

// A terminal that speaks the kitty keyboard protocol (it answers CSI ? u
// and sends Shift+Enter as CSI 13;2u) and has a light background: kitty's
// key viewer in a pane sees Shift+ENTER, Alt+ENTER and Ctrl+ENTER as in
// kitty itself, and a program asking for the background gets the
// terminal's.
func TestTUIKittyTerminalKeysAndColours(t *testing.T) {
	need(t, "kitty", "python3")
	probe := filepath.Join(t.TempDir(), "bg.py")
	if err := os.WriteFile(probe, []byte(bgProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPlayed(t, showKey, "python3 "+probe)
	p.waitOutput("the kitty protocol's query", "\x1b[?u")
	p.send("\x1b[?1u")
	p.waitOutput("the background query", "\x1b]11;?\x1b\\")
	p.send("\x1b]10;rgb:1010/1010/1010\x1b\\\x1b]11;rgb:fafa/f0f0/e6e6\x1b\\\x1b]12;rgb:0000/0000/0000\x1b\\")
	p.waitScreenCount("1", "Press any keys", 1)

	p.send("\x1b[13;2u") // Shift+Enter
	p.waitScreenCount("1", "Shift+ENTER", 1)
	p.send("\x1b[13;5u") // Ctrl+Enter
	p.waitScreenCount("1", "Ctrl+ENTER", 1)
	p.send("\x1b[97;6u") // Ctrl+Shift+a
	p.waitScreenCount("1", "Shift+Ctrl+a", 1)

	// The keys above came after the colours: the theme is set.
	ctlIn(t, p.dir, "send", "2", `go\r`)
	p.waitScreenCount("2", "BG=rgb:fafa/f0f0/e6e6", 1)

	// The terminal turns dark: sandmux asks for its colours again, and
	// the program that asked for mode 2031 hears of it.
	p.send("\x1b[?997;1n")
	p.waitOutputCount("the colour queries again", "\x1b]11;?\x1b\\", 2)
	p.send("\x1b]10;rgb:eeee/eeee/eeee\x1b\\\x1b]11;rgb:1010/1010/1010\x1b\\\x1b]12;rgb:eeee/eeee/eeee\x1b\\")
	p.waitScreenCount("2", "SCHEME=1", 1)
}

// A legacy program (cat -v) behind a terminal that speaks the kitty
// protocol and modifyOtherKeys gets the bytes a legacy terminal sends.
func TestTUILegacyProgramKeys(t *testing.T) {
	need(t, "cat")
	p := startPlayed(t, "stty -icrnl; echo READY; exec cat -v")
	p.waitOutput("the kitty protocol's query", "\x1b[?u")
	p.send("\x1b[?1u")
	p.waitOutput("the first frame", "ctrl+b ? help")
	p.waitScreenCount("1", "READY", 1)
	// Ctrl+a, Alt+x, Shift+Enter (kitty), Ctrl+a (modifyOtherKeys), F5, Esc (kitty).
	p.send("\x1b[97;5u\x1b[120;3u\x1b[13;2u\x1b[27;5;97~\x1b[15~\x1b[27uz\n")
	p.waitScreenCount("1", "^A^[x^M^A^[[15~^[z", 1)
}

// A terminal without the kitty protocol that sends modifyOtherKeys
// (Shift+Enter as CSI 27;2;13~) and Alt+Enter as ESC CR: kitty's key
// viewer still sees Shift+ENTER and Alt+ENTER; so it does for
// `ctl keys 1 shift+enter`.
func TestTUIModifyOtherKeysTerminal(t *testing.T) {
	need(t, "kitty")
	p := startPlayed(t, showKey)
	p.waitOutput("the first frame", "ctrl+b ? help")
	p.waitScreenCount("1", "Press any keys", 1)

	p.send("\x1b[27;2;13~") // Shift+Enter under modifyOtherKeys
	p.waitScreenCount("1", "Shift+ENTER", 1)
	p.send("\x1b\r") // Alt+Enter, the legacy way
	p.waitScreenCount("1", "Alt+ENTER", 1)
	ctlIn(t, p.dir, "keys", "1", "shift+enter")
	p.waitScreenCount("1", "Shift+ENTER", 2)
}

// Over SSH attach, with the real OpenSSH client on a terminal that
// speaks the kitty protocol: the keys reach the pane as they do locally.
func TestSSHAttachKittyKeys(t *testing.T) {
	need(t, "kitty", "ssh", "ssh-keygen")
	dir := t.TempDir()
	key, _ := sshKey(t, t.TempDir(), "rw")
	cfg := filepath.Join(dir, "sandmux.toml")
	writeConfig(t, cfg, fmt.Sprintf(`[server]
ssh_listen = "127.0.0.1:0"
ssh_authorized_keys = %q

[[sandbox]]
name = "keys"
command = ["kitty", "+kitten", "show_key", "-m", "kitty"]
`, key+".pub"))
	srv := startServe(t, sandmuxBin, serverSocket(dir), isolatedEnv(dir), "-c", cfg)
	port := srv.waitLog("its SSH address", regexp.MustCompile(`serving SSH on 127\.0\.0\.1:(\d+)$`))[1]
	srv.waitScreen("1", "Press any keys")

	p := playCommand(t, dir, strings.Fields(sshCommand(key, port, "")))
	p.waitOutput("the kitty protocol's query", "\x1b[?u")
	p.send("\x1b[?1u")
	p.send("\x1b[13;2u") // Shift+Enter
	p.waitScreenCount("1", "Shift+ENTER", 1)
	p.send("\x1b[27;5;13~") // Ctrl+Enter under modifyOtherKeys
	p.waitScreenCount("1", "Ctrl+ENTER", 1)
}
