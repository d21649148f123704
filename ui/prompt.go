package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/termsafe"
)

// A one-line prompt over the panes, for what a client types before an
// action runs: the command line of a new pane (prefix C) and the number
// of the pane to go to (prefix ' or g).

// prompt is the line being typed under modalPrompt.
type prompt struct {
	label, hint string
	text        string
	max         int                  // at most this many bytes
	accept      func(rune) bool      // which runes the line takes; nil: any printable
	done        func(string) tea.Cmd // runs on enter, with the line
}

// maxCommandLine bounds a typed command line.
const maxCommandLine = 4096

func (v *view) openPrompt(p *prompt) tea.Cmd {
	v.modal = p
	return nil
}

// promptInput handles a key of the prompt: enter runs it, esc (or
// ctrl+c) drops it, backspace takes the last character back.
func (v *view) promptInput(msg tea.KeyPressMsg) tea.Cmd {
	p := v.prompt()
	if p == nil {
		v.modal = nil
		return nil
	}
	switch msg.String() {
	case "enter":
		v.modal = nil
		return p.done(p.text)
	case "esc", "ctrl+c":
		v.modal = nil
	case "backspace":
		if r := []rune(p.text); len(r) > 0 {
			p.text = string(r[:len(r)-1])
		}
	default:
		p.add(msg.Text)
	}
	return nil
}

// add appends what the prompt takes of text (a key's, or a paste).
func (p *prompt) add(text string) {
	for _, r := range text {
		if p.accept != nil && !p.accept(r) || p.accept == nil && r < ' ' || len(p.text)+len(string(r)) > p.max {
			continue
		}
		p.text += string(r)
	}
}

func (v *view) promptText() string {
	p := v.prompt()
	if p == nil {
		return ""
	}
	return box(fmt.Sprintf("%s %s▏\n\n%s", p.label, termsafe.String(p.text), p.hint))
}

// startGoTo asks for the number of the pane to focus: any pane, on any
// page, past the nine that prefix 1…9 reach.
func (v *view) startGoTo() tea.Cmd {
	return v.openPrompt(&prompt{
		label: "Go to pane:", hint: fmt.Sprintf("a number from 1 to %d, then enter; esc leaves (prefix w lists them all)", len(v.m.Grid())),
		max: 6, accept: func(r rune) bool { return r >= '0' && r <= '9' },
		done: func(s string) tea.Cmd {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > len(v.m.Grid()) {
				v.notice = fmt.Sprintf("no pane %s: there are %d", s, len(v.m.Grid()))
				return nil
			}
			return v.setFocus(n - 1)
		},
	})
}

// startNewCommand asks for a command line to run in a new pane, with
// sh -c, where this client started.
func (v *view) startNewCommand() tea.Cmd {
	if v.m.opts.Spawn == nil || v.m.opts.Spawn.Command == nil {
		v.notice = "this server opens no panes from keys"
		return nil
	}
	return v.openPrompt(&prompt{
		label: "New pane, command:", hint: "run with sh -c in " + termsafe.String(v.dirOrServer()) + "; enter opens it, esc leaves",
		max: maxCommandLine,
		done: func(s string) tea.Cmd {
			if strings.TrimSpace(s) == "" {
				return nil
			}
			return v.open(v.m.opts.Spawn.Command(v.dir, s))
		},
	})
}
