package server

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sandmux/sandmux/control"
)

// maxQuote bounds how much of a client's text an error quotes.
const maxQuote = 40

// resolve finds the session a request names: by pane number first, then
// by exact name, then by id. Numbers win because they are what a person
// reads off the screen; a name shared by several panes is refused, never
// guessed.
func (h *ctlHandler) resolve(ref string) (control.SessionInfo, error) {
	if ref == "" {
		return control.SessionInfo{}, errors.New("name a session by its pane number, name or id: sandmux ctl ls lists them")
	}
	return resolveIn(h.core.Sessions(), ref)
}

func resolveIn(sessions []control.SessionInfo, ref string) (control.SessionInfo, error) {
	if n, err := strconv.Atoi(ref); err == nil && n > 0 && !strings.HasPrefix(ref, "+") {
		for _, si := range sessions {
			if si.Number == n {
				return si, nil
			}
		}
	}
	var named []control.SessionInfo
	for _, si := range sessions {
		if si.Name == ref {
			named = append(named, si)
		}
	}
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
	default:
		return control.SessionInfo{}, fmt.Errorf("name %s is ambiguous: panes %s have it; name one by its number or id", quote(ref), numbers(named))
	}
	for _, si := range sessions {
		if si.ID == ref {
			return si, nil
		}
	}
	return control.SessionInfo{}, fmt.Errorf("no session %s: sandmux ctl ls lists them", quote(ref))
}

// byID is the session with id as the core reports it now, or nil once it
// is gone.
func (h *ctlHandler) byID(id string) *control.SessionInfo {
	for _, si := range h.core.Sessions() {
		if si.ID == id {
			return &si
		}
	}
	return nil
}

func numbers(sessions []control.SessionInfo) string {
	list := make([]string, len(sessions))
	for i, si := range sessions {
		list[i] = strconv.Itoa(si.Number)
	}
	return strings.Join(list, ", ")
}

// describe names a session in a message as a person finds it on screen.
func describe(si control.SessionInfo) string {
	if si.Name == "" {
		return fmt.Sprintf("pane %d", si.Number)
	}
	return fmt.Sprintf("pane %d (%s)", si.Number, quote(si.Name))
}

// quote writes a client's or a sandbox's text into a message: escaped,
// so no control byte reaches a terminal, and cut short.
func quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	cut := maxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}
