package vt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// syncDSRPy waits for the answer to DSR 5 (CSI 0 n): recorded streams ask
// their own questions (CPR, DA, colours), whose answers must not be taken
// for the end of the replay.
const syncDSRPy = `import os, termios, tty
fd = os.open("/dev/tty", os.O_RDWR)
old = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(fd, b"\x1b[5n")
buf = b""
while not buf.endswith(b"\x1b[0n"):
    buf += os.read(fd, 1)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
`

// TestReplayCorpus replays the output of real programs (vim, less, man, ls
// --color; see testdata/replay/record.py) raw into both terminals and
// compares them cell for cell: text, colours and attributes, and the
// cursor. Echo and output processing are off while replaying, so the
// answers each terminal gives to the recorded queries never show.
func TestReplayCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("differential tests run real programs")
	}
	paths, err := filepath.Glob("testdata/replay/*.vt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no replay corpus in testdata/replay: %v", err)
	}
	var cases []diffCase
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, diffCase{
			name: strings.TrimSuffix(filepath.Base(p), ".vt"), cols: 80, rows: 24, styles: true, cursor: true,
			files:  map[string]string{"stream": string(data), "dsr.py": syncDSRPy},
			script: `stty -echo -opost; cat "$D/stream"; python3 "$D/dsr.py"; stty echo opost`,
		})
	}
	runDiffCases(t, cases)
}
