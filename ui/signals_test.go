package ui

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/sandmux/sandmux/ui/term"
)

// signalsModel is a model of two panes drawing on a real Terminal whose
// output a test reads after closing it.
func signalsModel(t *testing.T, cfg func(*Config)) (*Model, *term.Terminal, *lockedBuffer) {
	t.Helper()
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 120, 40)
	cfg(&m.opts)
	out := &lockedBuffer{}
	tm, err := term.Open(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	drawTo(m, tm)
	return m, tm, out
}

// An unfocused pane's bell and notification reach the terminal, the
// notification as sandmux's own OSC 9 naming the pane, its text escaped;
// the focused pane's notification does not under "other".
func TestSignalsPassedToTerminal(t *testing.T) {
	m, tm, out := signalsModel(t, func(c *Config) { c.Bell, c.Notifications, c.Clipboard = PassAny, PassOther, true })
	m.Grid()[1].Screen().Write("\a\x1b]9;tests\u009b31m done\x07\x1b]52;c;aGk=\x07")
	m.Grid()[0].Screen().Write("\x1b]9;focused pane\x07")
	m.Update(frameMsg{})
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"\a", "\x1b]9;bpane: tests\\u009b31m done\x07", "\x1b]52;c;aGk=\x07"} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, s)
		}
	}
	if strings.Contains(s, "]9;apane: focused pane") {
		t.Error("the focused pane's notification was passed on under \"other\"")
	}
	if strings.Contains(s, "\u009b") {
		t.Error("a C1 control inside the notification reached the terminal raw")
	}
}

// With the zero Config nothing is passed on.
func TestSignalsOffByDefault(t *testing.T) {
	m, tm, out := signalsModel(t, func(*Config) {})
	m.Grid()[1].Screen().Write("\a\x1b]9;hi\x07\x1b]52;c;aGk=\x07")
	m.Update(frameMsg{})
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	if s := betweenModes(out.String()); strings.ContainsAny(s, "\a") || strings.Contains(s, "]52;") {
		t.Errorf("signals passed on with everything off: %q", s)
	}
}

// The focused pane's cursor colour reaches the terminal, and the
// terminal's own comes back when focus moves to a pane that set none.
func TestCursorColourFollowsFocus(t *testing.T) {
	m, tm, out := signalsModel(t, func(*Config) {})
	m.Grid()[0].Screen().Write("\x1b]12;#ff8800\x07")
	m.Grid()[1].Screen().Write("\x1b]12;rgb:00/ff/00\x07")
	m.Update(frameMsg{})
	press(m, "ctrl+b")
	press(m, "o") // focus pane 1, then back
	press(m, "ctrl+b")
	press(m, "o")
	m.Grid()[0].Screen().Write("\x1b]112\x07")
	m.Update(frameMsg{})
	if err := tm.Close(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	a := strings.Index(s, "\x1b]12;#ff8800\x07")
	b := strings.Index(s, "\x1b]12;rgb:00/ff/00\x07")
	c := strings.LastIndex(s, "\x1b]112\x07")
	if a < 0 || b < a || c < b {
		t.Errorf("cursor colours in order #ff8800, rgb:00/ff/00, reset: at %d, %d, %d in %q", a, b, c, s)
	}
}

// Each title starts with its pane's number, and prefix N focuses pane N,
// across pages too; a number with no pane does nothing.
func TestPaneNumbersFocus(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 12, 120, 40)
	if v := plainView(m); !strings.Contains(v, " 1 apane") || !strings.Contains(v, " 2 bpane") {
		t.Fatalf("titles lack their numbers:\n%s", v)
	}
	press(m, "ctrl+b")
	press(m, "9")
	if m.lv().focusIndex() != 8 {
		t.Errorf("prefix 9 focused pane %d, want 9", m.lv().focusIndex()+1)
	}
	if !strings.Contains(plainView(m), " 9 ipane") {
		t.Errorf("pane 9's page is not shown:\n%s", plainView(m))
	}
	m2 := newTestModel(t, newFakeBackend(), 2, 120, 40)
	press(m2, "ctrl+b")
	press(m2, "5")
	if m2.lv().focusIndex() != 0 {
		t.Errorf("prefix 5 with 2 panes moved focus to %d", m2.lv().focusIndex()+1)
	}
}

// A pane's clipboard write reaches the clients that may type, not a
// read-only one, unless ClipboardReadOnly (ui.clipboard = "all") says so.
func TestContract_A16_ClipboardNotHandedToReadOnlyClients(t *testing.T) {
	for _, all := range []bool{false, true} {
		b := newFakeBackend()
		m := newTestModel(t, b, 1, 80, 24)
		m.opts.Clipboard, m.opts.ClipboardReadOnly = true, all
		outs := map[bool]*lockedBuffer{}
		terms := map[bool]*term.Terminal{}
		for id, ro := range map[int]bool{1: false, 2: true} {
			outs[ro] = &lockedBuffer{}
			tm, err := term.Open(nil, outs[ro])
			if err != nil {
				t.Fatal(err)
			}
			terms[ro] = tm
			m.Update(AttachMsg{ID: id, Term: tm, Width: 80, Height: 24, ReadOnly: ro})
		}
		m.Grid()[0].Screen().Write("\x1b]52;c;aGk=\x07")
		m.Update(frameMsg{})
		for ro, tm := range terms {
			if err := tm.Close(); err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(outs[ro].String(), "\x1b]52;c;aGk=\x07")
			if want := !ro || all; got != want {
				t.Errorf("ClipboardReadOnly %v: the read-only %v client got the clipboard write: %v, want %v", all, ro, got, want)
			}
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the drawing goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// betweenModes is what a Terminal wrote between setting its modes up
// (which end with the title, its BEL included) and undoing them.
func betweenModes(s string) string {
	const lastSet, firstUndo = "\x1b]2;sandmux\x07", "\x1b[?2031l"
	if i := strings.Index(s, lastSet); i >= 0 {
		s = s[i+len(lastSet):]
	}
	if i := strings.LastIndex(s, firstUndo); i >= 0 {
		s = s[:i]
	}
	return s
}
