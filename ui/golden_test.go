package ui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/session"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares the model's view with testdata/golden/NAME.golden: the
// exact content with its escape sequences, then the cursor. Lipgloss
// emits full-colour sequences and Bubble Tea downsamples at output, so the
// content does not depend on the terminal running the test. A plain-text
// copy (NAME.txt) is kept beside it for people reading a diff.
func golden(t *testing.T, m *Model, name string) {
	t.Helper()
	text, cur := screen(m)
	cursor := "none"
	if cur != nil {
		cursor = fmt.Sprintf("%d,%d", cur.X, cur.Y)
	}
	got := fmt.Sprintf("cursor: %s\n%s\n", cursor, text)
	plain := ansi.Strip(got)
	for i, line := range strings.Split(strings.TrimSuffix(plain, "\n"), "\n")[1:] {
		if w := ansi.StringWidth(line); w != m.lv().width {
			t.Errorf("%s: line %d is %d cells wide, want %d: %q", name, i, w, m.lv().width, line)
		}
	}
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(path, ".golden")+".txt", []byte(plain), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("view %s differs from %s (run with -update after checking):\n%s", name, path, plain)
	}
}

func TestGoldenGrids(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 9, 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := newTestModel(t, newFakeBackend(), n, 120, 40)
			golden(t, m, fmt.Sprintf("grid-%02d", n))
		})
	}
}

func TestGoldenZoom(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 4, 120, 40)
	press(m, "ctrl+b")
	press(m, "right")
	press(m, "ctrl+b")
	press(m, "z")
	golden(t, m, "zoom")
}

func TestGoldenHelp(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 2, 120, 40)
	press(m, "ctrl+b")
	press(m, "?")
	golden(t, m, "help")
}

func TestGoldenQuitModal(t *testing.T) {
	m := newTestModel(t, newFakeBackend(), 3, 120, 40)
	press(m, "ctrl+b")
	press(m, "q")
	golden(t, m, "quit-confirm")
	press(m, "y")
	setSession(m, 1, func(info *session.Info) { info.State, info.Stage = session.Closing, "SIGHUP sent, waiting" })
	golden(t, m, "quit-teardown")
}

func TestGoldenFailedPane(t *testing.T) {
	b := newFakeBackend()
	b.StartErr["bpane"] = errFailedStart
	m := newTestModel(t, b, 2, 120, 40)
	golden(t, m, "failed-pane")
}

func TestGoldenBroadcastAndScrollback(t *testing.T) {
	b := newFakeBackend()
	var long strings.Builder
	for i := range 60 {
		fmt.Fprintf(&long, "line %02d\r\n", i)
	}
	b.Output["apane"] = long.String()
	m := newTestModel(t, b, 2, 120, 40)
	press(m, "ctrl+b")
	press(m, "b")
	press(m, "ctrl+b")
	press(m, "right")
	press(m, "ctrl+b")
	press(m, "space")
	press(m, "ctrl+b")
	press(m, "left")
	press(m, "ctrl+b")
	press(m, "[")
	press(m, "/")
	for _, k := range "line 1" {
		press(m, string(k))
	}
	press(m, "enter")
	golden(t, m, "broadcast-scrollback")
}

func TestGoldenFailedClose(t *testing.T) {
	b := newFakeBackend()
	b.CloseErr["apane"] = errFullStore
	m := newTestModel(t, b, 4, 120, 40)
	closeWith(t, m, "x")
	golden(t, m, "close-failed")
}
