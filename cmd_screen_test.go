package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

func screenCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), sandmuxBin, append([]string{"screen"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if stderr.Len() > 0 {
		t.Logf("stderr: %s", stderr.String())
	}
	if exitErr, ok := err.(*exec.ExitError); ok {
		return string(out), exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func TestScreenFinalScreen(t *testing.T) {
	out, code := screenCmd(t, "--size", "20x4", "--", "sh", "-c", `printf 'ab日本cd\n'; seq 1 5; printf 'x   '; exit 3`)
	want := "3\n4\n5\nx\n"
	if out != want || code != 3 {
		t.Errorf("screen = %q (exit %d), want %q (exit 3)", out, code, want)
	}
	out, _ = screenCmd(t, "--size", "20x4", "--scrollback", "--", "sh", "-c", `printf 'ab日本cd\n'; seq 1 5`)
	if want := "ab日本cd\n1\n2\n3\n4\n5\n\n"; out != want {
		t.Errorf("with scrollback = %q, want %q", out, want)
	}
}

func TestScreenANSI(t *testing.T) {
	out, _ := screenCmd(t, "--ansi", "--size", "20x2", "--", "printf", `\033[1;31mred\033[0m plain`)
	if !strings.Contains(out, "\x1b[") || !strings.Contains(out, "red") || !strings.Contains(out, "plain") {
		t.Errorf("--ansi output = %q, want SGR runs and trimmed rows", out)
	}
	plain, _ := screenCmd(t, "--size", "20x2", "--", "printf", `\033[1;31mred\033[0m plain`)
	if plain != "red plain\n\n" {
		t.Errorf("plain output = %q", plain)
	}
}

// A program that waits for the terminal's DA1 reply gets it at once (it
// would otherwise wait out its timeout and say so).
func TestScreenAnswersDA1(t *testing.T) {
	need(t, "python3")
	prog := `
import os, sys, termios, tty, select
fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)
os.write(1, b"\x1b[c"); buf = b""
while not buf.endswith(b"c"):
    r, _, _ = select.select([fd], [], [], 5)
    if not r: break
    buf += os.read(fd, 64)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
print("DA1 reply" if buf.startswith(b"\x1b[?") else "no reply")
`
	out, code := screenCmd(t, "--size", "30x3", "--", "python3", "-c", prog)
	if !strings.Contains(out, "DA1 reply") || code != 0 {
		t.Errorf("screen = %q (exit %d), want the program to get a DA1 reply", out, code)
	}
}

func TestScreenUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--size", "0x3", "true"}, {"--bogus"}} {
		if _, code := screenCmd(t, args...); code != exitUsage {
			t.Errorf("sandmux screen %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
