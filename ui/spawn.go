package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/termsafe"
)

// New panes opened from the keyboard: prefix c opens a local shell where
// the client started (or, when the config has sandboxes of its own, a
// small picker of them below that shell), prefix C one running a typed
// command line (prompt.go). The server says how such panes are made
// (Spawner); the model only adds them, as ctl run does.

// Spawner makes the specs of the panes a client opens. Its functions run
// in Update: they must not block.
type Spawner struct {
	// Dir is where a client that said nothing of its own directory (one
	// over SSH) opens panes: the server's directory.
	Dir string
	// Shell is a local shell in dir.
	Shell func(dir string) mux.PaneSpec
	// Command is a local pane running line with sh -c in dir.
	Command func(dir, line string) mux.PaneSpec
	// Sandboxes are the config's sandboxes prefix c offers; none: prefix
	// c opens the shell at once. Sandbox makes the pane of one.
	Sandboxes []string
	Sandbox   func(name string) (mux.PaneSpec, error)
}

// picker is the list prefix c shows: the shell here, then each sandbox.
type picker struct {
	sel int
}

// maxPickerRows bounds the sandboxes the picker lists at once; the
// selection scrolls through the rest.
const maxPickerRows = 12

// dirOrServer is where this client's new panes start.
func (v *view) dirOrServer() string {
	if v.dir != "" {
		return v.dir
	}
	if s := v.m.opts.Spawn; s != nil {
		return s.Dir
	}
	return ""
}

func (v *view) newPane() tea.Cmd {
	s := v.m.opts.Spawn
	switch {
	case s == nil || s.Shell == nil:
		v.notice = "this server opens no panes from keys"
		return nil
	case len(s.Sandboxes) == 0 || s.Sandbox == nil:
		return v.open(s.Shell(v.dirOrServer()))
	}
	v.modal = &picker{}
	return nil
}

// open adds the pane, starts it and focuses it in this client.
func (v *view) open(spec mux.PaneSpec) tea.Cmd {
	if v.m.Quitting() {
		return nil
	}
	_, cmd, err := v.m.Open(spec)
	if err != nil {
		v.notice = err.Error()
		return nil
	}
	return tea.Batch(cmd, v.setFocus(len(v.m.Grid())-1))
}

// pickInput handles a key of the picker: up and down (or a number) move
// the selection, enter opens it, esc leaves.
func (v *view) pickInput(msg tea.KeyPressMsg) tea.Cmd {
	s, p := v.m.opts.Spawn, v.picker()
	if s == nil || p == nil {
		v.modal = nil
		return nil
	}
	n := 1 + len(s.Sandboxes)
	switch key := msg.String(); key {
	case "up", "k":
		p.sel = (p.sel + n - 1) % n
	case "down", "j", "tab":
		p.sel = (p.sel + 1) % n
	case "home":
		p.sel = 0
	case "end":
		p.sel = n - 1
	case "esc", "ctrl+c", "q":
		v.modal = nil
	case "enter":
		v.modal = nil
		if p.sel == 0 {
			return v.open(s.Shell(v.dirOrServer()))
		}
		spec, err := s.Sandbox(s.Sandboxes[p.sel-1])
		if err != nil {
			v.notice = err.Error()
			return nil
		}
		return v.open(spec)
	default:
		if len(key) == 1 && key[0] >= '1' && key[0] <= '9' && int(key[0]-'1') < n {
			p.sel = int(key[0] - '1')
		}
	}
	return nil
}

func (v *view) pickerText() string {
	s, p := v.m.opts.Spawn, v.picker()
	if s == nil || p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("New pane:\n\n")
	rows := append([]string{"shell in " + v.dirOrServer()}, s.Sandboxes...)
	first := max(0, min(p.sel-maxPickerRows/2, len(rows)-maxPickerRows))
	for i := first; i < min(len(rows), first+maxPickerRows); i++ {
		mark := " "
		if i == p.sel {
			mark = "▶"
		}
		label := rows[i]
		if i > 0 {
			label = "sandbox " + label
		}
		termsafe.Fprintf(&b, "%s %d %s\n", mark, i+1, label)
	}
	fmt.Fprintf(&b, "\nup/down or a number pick, enter opens, esc leaves")
	return box(b.String())
}
