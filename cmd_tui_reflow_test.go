package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
)

// seqLine is what `seq -s , 1 60` prints: longer than any pane here.
var seqLine = func() string {
	n := make([]string, 60)
	for i := range n {
		n[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(n, ",")
}()

// paneText is the pane's scrollback and screen as ctl screen prints them,
// rows run together: a line the pane wrapped reads whole.
func paneText(t *testing.T, dir string) string {
	return strings.ReplaceAll(ctlIn(t, dir, "screen", "--scrollback", "1"), "\n", "")
}

// pollCtl polls ctl screen until ok accepts the pane's rows; the deadline
// only bounds a failure.
func pollCtl(t *testing.T, dir, what string, ok func(rows []string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := ctlIn(t, dir, "screen", "1")
		if ok(strings.Split(out, "\n")) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; the pane shows:\n%s", what, out)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not synchronisation
	}
}

// seqRowWidth is how wide the pane's row starting the seq line is, or 0.
func seqRowWidth(rows []string) int {
	for _, r := range rows {
		if strings.HasPrefix(r, "1,2,3,4,") {
			return len(r)
		}
	}
	return 0
}

// A 60-column client attaches, types and detaches: the pane narrows to it
// and widens back, and the long line is whole all along, in the screen
// of the first client and in ctl screen --scrollback (it lost 33 numbers
// when a narrowing cut the rows).
func TestTUIReflowSecondClient(t *testing.T) {
	first := startTerm(t, 160, 30, sandmuxBin+" 'bash --norc'")
	dir := first.dir
	first.waitStarted()
	first.typeText("seq -s , 1 60")
	first.keys("Enter")
	first.waitText("58,59,60")

	second := startTermIn(t, dir, 60, 24, sandmuxBin+" attach")
	second.waitText("1,2,3,4,")
	second.typeText("x")
	second.keys("BSpace")
	pollCtl(t, dir, "the pane to follow the 60-column client", func(rows []string) bool {
		w := seqRowWidth(rows)
		return w > 0 && w <= 60
	})
	if got := paneText(t, dir); !strings.Contains(got, seqLine) {
		t.Fatalf("at 60 columns the line is not whole:\n%s", ctlIn(t, dir, "screen", "--scrollback", "1"))
	}
	second.keys("C-b", "d")
	second.waitExit()

	first.typeText("x")
	first.keys("BSpace")
	pollCtl(t, dir, "the pane to follow the 160-column client again", func(rows []string) bool {
		return seqRowWidth(rows) > 100
	})
	if got := paneText(t, dir); !strings.Contains(got, seqLine) {
		t.Fatalf("after the 60-column client left the line is not whole:\n%s", ctlIn(t, dir, "screen", "--scrollback", "1"))
	}
	screen := first.screen()
	if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), seqLine[:100]) {
		t.Fatalf("the first client does not show the line whole:\n%s", screen)
	}
}

// Zooming a pane with the prefix, printing a long line, unzooming and
// zooming again keeps the line whole.
func TestTUIReflowZoom(t *testing.T) {
	tt := startTerm(t, 120, 30, sandmuxBin+" 'bash --norc'")
	dir := tt.dir
	tt.waitStarted()
	ctlIn(t, dir, "run", "--name", "other", "--", "sh", "-c", "exec sleep 1000")
	tt.waitText("other")
	tt.keys("C-b", "z")
	// The zoom resizes the pane's PTY after a debounce, and a SIGWINCH
	// that lands as readline takes the Enter has it redraw the prompt and
	// line after its newline, so the output follows them on their row
	// (as in any terminal resized then). The line waits for the new size.
	tt.typeText(`until [ "$(stty size | cut -d' ' -f2)" -ge 100 ]; do sleep 0.05; done; echo ZOO''MED`)
	tt.keys("Enter")
	tt.waitText("ZOOMED")
	tt.typeText("seq -s , 1 60")
	tt.keys("Enter")
	tt.waitText("58,59,60")
	var wide int
	pollCtl(t, dir, "the line at the zoomed width", func(rows []string) bool {
		wide = seqRowWidth(rows)
		return wide > 0
	})
	tt.keys("C-b", "z")
	pollCtl(t, dir, "the pane to narrow when unzoomed", func(rows []string) bool {
		w := seqRowWidth(rows)
		return w > 0 && w < wide
	})
	if got := paneText(t, dir); !strings.Contains(got, seqLine) {
		t.Fatalf("unzoomed, the line is not whole:\n%s", ctlIn(t, dir, "screen", "--scrollback", "1"))
	}
	tt.keys("C-b", "z")
	pollCtl(t, dir, "the pane to widen when zoomed again", func(rows []string) bool {
		return seqRowWidth(rows) == wide
	})
	if got := paneText(t, dir); !strings.Contains(got, seqLine) {
		t.Fatalf("zoomed again, the line is not whole:\n%s", ctlIn(t, dir, "screen", "--scrollback", "1"))
	}
}

// An idle shell stays idle when a client of another size attaches (the
// newest client sizes the panes): its redraw after SIGWINCH is no activity. (Were it, the pane
// would turn working within the debounce; nothing here waits on time to
// pass, only for events, and a slow machine cannot make it fail.)
func TestTUIIdleShellStaysIdleOnResize(t *testing.T) {
	first := startTermSetup(t, 120, 30, sandmuxBin+" 'bash --norc'", func(dir string) {
		if err := os.MkdirAll(filepath.Join(dir, "config", "sandmux"), 0o700); err != nil {
			t.Fatal(err)
		}
		writeConfig(t, filepath.Join(dir, "config", "sandmux", "config.toml"), sandboxUnused+"[ui]\nattention_after = \"1s\"\n")
	})
	dir := first.dir
	first.waitStarted()
	// Idle after the prompt was printed, not the idle of a pane that has
	// printed nothing yet (which the prompt then turns working). The
	// session stamps its output when read, the state when the loop weighs
	// it, so "no output yet" can be shown since after the prompt's stamp:
	// only the reason says the prompt was weighed and went quiet.
	var before control.SessionInfo
	for deadline := time.Now().Add(60 * time.Second); ; {
		before = sessionInfo(t, dir)
		if before.State == "idle" && strings.HasPrefix(before.Reason, "quiet for") && before.LastOutput != nil && before.Since != nil && before.Since.After(*before.LastOutput) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell never went idle after its prompt: %+v", before)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not synchronisation
	}

	second := startTermIn(t, dir, 70, 20, sandmuxBin+" attach")
	second.waitStarted()
	deadline := time.Now().Add(30 * time.Second)
	for {
		si := sessionInfo(t, dir)
		if si.LastOutput != nil && (before.LastOutput == nil || si.LastOutput.After(*before.LastOutput)) {
			break // the shell redrew for its new size
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell printed nothing after the resize: %+v", si)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not synchronisation
	}
	cmd := exec.Command(sandmuxBin, "ctl", "-S", serverSocket(dir), "wait", "1", "--state", "working", "--timeout", "3s")
	cmd.Env = isolatedEnv(dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the idle shell turned working on the resize: %s %+v", out, sessionInfo(t, dir))
	}
	if si := sessionInfo(t, dir); si.State != "idle" {
		t.Fatalf("after the resize the shell is %s (%s), want idle", si.State, si.Reason)
	}
}

func sessionInfo(t *testing.T, dir string) control.SessionInfo {
	t.Helper()
	var list []control.SessionInfo
	if err := json.Unmarshal([]byte(ctlIn(t, dir, "--json", "ls")), &list); err != nil || len(list) == 0 {
		t.Fatalf("ctl --json ls: %v %v", err, list)
	}
	return list[0]
}
