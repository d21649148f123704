package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// Text from a config, a provider or a remote host, as hostile as it gets:
// printed raw, each writes the clipboard (OSC 52), sets the window title
// (OSC 0) or reverses the text after it (a bidi override).
const (
	hostileName   = "evil\x1b]0;pwned\x07"
	hostileNotice = "restore refused: member \x1b]52;c;aGVsbG8=\x07\u202e"
)

var errHostile = errors.New("ssh: handshake: \x1b]52;c;aGVsbG8=\x07\x9d0;x\u009c\xff refused")

// chromeUnsafe says what in a rendered view is not sandmux's own: the
// view may hold the SGR sequences lipgloss writes (ESC [ … m) and nothing
// else that a terminal acts on.
func chromeUnsafe(view string) string {
	for i, r := range view {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(view[i:], "\uFFFD"):
			return "invalid UTF-8"
		case r == 0x1b:
			if !sgrAt(view[i:]) {
				return "an escape sequence other than SGR"
			}
		case r < 0x20 && r != '\n', r == 0x7f:
			return "a C0 control"
		case r >= 0x80 && r <= 0x9f:
			return "a C1 control"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return "a bidi control"
		}
	}
	return ""
}

// sgrAt reports whether s starts with one SGR sequence.
func sgrAt(s string) bool {
	if !strings.HasPrefix(s, "\x1b[") {
		return false
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return true
		default:
			return false
		}
	}
	return false
}

// hostileModel opens three panes named with escape sequences: one that
// fails to start with a hostile error, one whose Prepare returns a hostile
// notice, one plain that is closing at a hostile stage.
func hostileModel(t *testing.T) (*Model, *fakeBackend) {
	t.Helper()
	b := newFakeBackend()
	names := []string{hostileName + "-failed", hostileName + "-notice", hostileName + "-closing"}
	b.StartErr[names[0]] = errHostile
	var specs []mux.PaneSpec
	for _, n := range names {
		spec := mux.PaneSpec{Name: n, Provider: "ssh\x1b[2J", Spec: providers.Spec{Command: []string{"sh"}}}
		if n == names[1] {
			spec.Prepare = func(context.Context) (string, error) { return hostileNotice, nil }
		}
		specs = append(specs, spec)
	}
	m := New(t.Context(), Config{Prefix: "ctrl+b", FPS: 60, Scrollback: 1000}, b, specs)
	m.SetClock(fixedNow)
	startTestPanes(m, 300, 30)
	t.Cleanup(func() {
		for _, p := range m.Grid() {
			if p.Screen() != nil {
				p.Screen().Close()
			}
		}
	})
	setSession(m, 2, func(info *session.Info) { info.State, info.Stage = session.Closing, "hook: \x1b]0;pwned\x07 uploading" })
	turn(m) // the states follow the phases the infos set
	return m, b
}

// TestContract_T1_ChromeEscapesHostileText renders titles, a failed pane's
// reason and the teardown modal from hostile names, errors, notices and
// stages: the frame holds sandmux's SGR styling and the hostile text only
// escaped.
func TestContract_T1_ChromeEscapesHostileText(t *testing.T) {
	m, _ := hostileModel(t)
	views := map[string]string{"grid": content(m)}
	press(m, "ctrl+b")
	press(m, "q")
	press(m, "y")
	views["quitting"] = content(m)
	wants := map[string][]string{
		"grid": {
			`evil\x1b]0;pwned\x07-failed · ssh\x1b[2J · failed: ssh: handshake: \x1b]52;c;aGVsbG8=\x07\x9d0;x\u009c\xff refused`,
			`evil\x1b]0;pwned\x07-notice · ssh\x1b[2J · idle · restore refused: member \x1b]52;c;aGVsbG8=\x07\u202e`,
			`evil\x1b]0;pwned\x07-closing · ssh\x1b[2J · closing: hook: \x1b]0;pwned\x07 uploading`,
		},
		"quitting": {
			`evil\x1b]0;pwned\x07-closing closing: hook: \x1b]0;pwned\x07 uploading`,
		},
	}
	for name, view := range views {
		if why := chromeUnsafe(view); why != "" {
			t.Errorf("%s view holds %s:\n%q", name, why, view)
		}
		if strings.Contains(view, "\x1b]") {
			t.Errorf("%s view holds an OSC sequence", name)
		}
		for _, want := range wants[name] {
			if !strings.Contains(stripSGR(view), want) {
				t.Errorf("%s view lacks %q:\n%s", name, want, stripSGR(view))
			}
		}
	}
}

// TestGoldenHostileText pins how escaped text looks in title lines.
func TestGoldenHostileText(t *testing.T) {
	m, _ := hostileModel(t)
	golden(t, m, "hostile-text")
}

// stripSGR removes SGR sequences, leaving the text the user reads.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if sgrAt(s[i:]) {
			i += strings.IndexByte(s[i:], 'm')
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
