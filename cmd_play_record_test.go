package main

import (
	"path/filepath"
	"testing"
)

// What sandmux record wrote, played back with no pauses, ends on the
// screen the program itself leaves: colours, a scroll region, wide
// characters, and a program that ends on the alternate screen.
func TestRecordThenPlay(t *testing.T) {
	for name, script := range map[string]string{
		"main screen": `printf '\033[1;31mred\033[0m \033[38;5;120mgreen\033[0m\n'; printf '\033[2;6r\033[2H'; seq 1 12; printf '\033[r\033[8;1H日本語 é\033[4mu\033[0m'`,
		"alternate":   `seq 1 5; printf '\033[?1049h\033[?25l\033[H\033[2J\033[44m editor \033[0m\033[4;3Htyped'`,
	} {
		t.Run(name, func(t *testing.T) {
			cast := filepath.Join(t.TempDir(), "run.cast")
			if code := record(t, cast, "--size", "30x8", "--", "sh", "-c", script); code != 0 {
				t.Fatalf("record exit %d", code)
			}
			want, code := screenCmd(t, "--ansi", "--size", "30x8", "--", "sh", "-c", script)
			if code != 0 {
				t.Fatalf("screen exit %d", code)
			}
			got, code := screenCmd(t, "--ansi", "--size", "30x8", "--", sandmuxBin, "play", "--speed", "0", cast)
			if got != want || code != 0 {
				t.Errorf("played (exit %d):\n%q\nthe program's own screen:\n%q", code, got, want)
			}
		})
	}
}
