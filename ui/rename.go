package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/termsafe"
)

// The rename prompt (prefix ,): a view types a pane's new name; the
// shared side renames it (mux/names.go).

// maxName bounds a name typed in the rename prompt, in bytes.
const maxName = 64

func (v *view) startRename() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	v.modal = &renameModal{key: p.Key(), text: p.Spec().Name}
	return nil
}

// renameInput handles a key of the rename prompt: enter keeps the name,
// esc drops it.
func (v *view) renameInput(msg tea.KeyPressMsg) tea.Cmd {
	r := v.rename()
	if r == nil {
		v.modal = nil
		return nil
	}
	switch msg.String() {
	case "enter":
		v.modal = nil
		if i := v.m.IndexOf(r.key); i >= 0 {
			v.m.Rename(i, r.text)
		}
	case "esc", "ctrl+c":
		v.modal = nil
	case "backspace":
		r.text = dropLastRune(r.text)
	default:
		if len(r.text)+len(msg.Text) <= maxName {
			r.text += msg.Text
		}
	}
	return nil
}

func (v *view) renamePrompt(r *renameModal) string {
	return box(fmt.Sprintf("Rename pane %d: %s▏\n\nenter keeps it, esc leaves the name as it was",
		v.m.IndexOf(r.key)+1, termsafe.String(r.text)))
}
