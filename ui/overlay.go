package ui

import (
	"fmt"
	"strings"

	"github.com/sandmux/sandmux/termsafe"
)

// helpText is the help overlay, written from the key map table.
func (m *Model) helpText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandmux — press %s, then:\n\n", m.cfg.Prefix)
	for _, k := range keymap {
		name := k.name
		if name == "" {
			name = strings.Join(k.keys, " ")
		}
		fmt.Fprintf(&b, "  %-7s %s\n", name, k.help)
	}
	fmt.Fprintf(&b, "  %-7s send %s itself\n\n", m.cfg.Prefix, m.cfg.Prefix)
	b.WriteString("Everything else goes to the focused pane. Any key closes this.")
	return overlayStyle.Render(b.String())
}

func (m *Model) confirmText() string {
	running := 0
	for _, p := range m.panes {
		if p.phase == phaseRunning || p.phase == phaseStarting {
			running++
		}
	}
	return overlayStyle.Render(fmt.Sprintf("%d session(s) still running.\nQuit and tear them all down? (y/n)", running))
}

// teardownText is the modal shown while a pane closes or everything shuts
// down: one line per session with its teardown stage.
func (m *Model) teardownText() string {
	var b strings.Builder
	if m.modal == modalQuitting {
		b.WriteString("Quitting: tearing down every session\n\n")
	} else {
		b.WriteString("Closing pane\n\n")
	}
	for _, p := range m.panes {
		if m.modal == modalClosing && p.key != m.closingKey {
			continue
		}
		termsafe.Fprintf(&b, "  %-16s %s\n", p.spec.Name, p.status())
	}
	b.WriteString("\n")
	if m.killRequested {
		b.WriteString("Killing now (SIGKILL); waiting for everything to settle.")
	} else if m.modal == modalQuitting {
		b.WriteString("q again: kill everything now.")
	} else {
		b.WriteString("x or k again: kill now.")
	}
	return overlayStyle.Render(b.String())
}
