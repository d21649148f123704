package ui

import (
	"fmt"
	"strings"

	"github.com/sandmux/sandmux/termsafe"
)

// helpText is the help overlay, written from the key map table.
func (v *view) helpText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandmux — press %s, then:\n\n", v.m.cfg.Prefix)
	for _, k := range keymap {
		name := k.name
		if name == "" {
			name = strings.Join(k.keys, " ")
		}
		fmt.Fprintf(&b, "  %-7s %s\n", name, k.help)
	}
	fmt.Fprintf(&b, "  %-7s send %s itself\n\n", v.m.cfg.Prefix, v.m.cfg.Prefix)
	b.WriteString("Everything else goes to the focused pane. Any key closes this.")
	return overlayStyle.Render(b.String())
}

func (v *view) confirmText() string {
	running := 0
	for _, p := range v.m.panes {
		if p.phase == phaseRunning || p.phase == phaseStarting {
			running++
		}
	}
	return overlayStyle.Render(fmt.Sprintf("%d session(s) still running.\nQuit and tear them all down? (y/n)", running))
}

// confirmCloseText asks before x closes a pane that runs.
func (v *view) confirmCloseText() string {
	i := v.m.indexOf(v.closingKey)
	if i < 0 {
		return overlayStyle.Render("That pane is gone. (any key)")
	}
	return overlayStyle.Render(fmt.Sprintf("Close pane %d (%s)? It is torn down. (y/n)", i+1, termsafe.String(v.m.panes[i].spec.Name)))
}

// teardownText is the modal shown while a pane closes or everything shuts
// down: one line per session with its teardown stage.
func (v *view) teardownText() string {
	var b strings.Builder
	quitting := v.m.quitting
	killing := v.m.killRequested
	if quitting {
		b.WriteString("Quitting: tearing down every session\n\n")
	} else {
		b.WriteString("Closing pane\n\n")
	}
	for _, p := range v.m.panes {
		if !quitting && p.key != v.closingKey {
			continue
		}
		if !quitting {
			killing = p.closeKill
		}
		termsafe.Fprintf(&b, "  %-16s %s\n", p.spec.Name, p.status())
	}
	b.WriteString("\n")
	if killing {
		b.WriteString("Killing now (SIGKILL); waiting for everything to settle.")
	} else if quitting {
		b.WriteString("q again: kill everything now.")
	} else {
		b.WriteString("x or k again: kill now.")
	}
	return overlayStyle.Render(b.String())
}
