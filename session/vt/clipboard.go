package vt

import "bytes"

// Clipboard writes (OSC 52). The filter keeps the latest write for the UI
// to hand on to the outer terminal (config ui.clipboard); vt10x never sees
// it. A read ("?") is never answered: a sandbox must not learn what the
// user copied elsewhere.

// maxClipboard bounds an OSC 52 string (base64), far above the other
// strings' limit: a copied selection can be long.
const maxClipboard = 1 << 20

// Clipboard is a clipboard write the child asked for.
type Clipboard struct {
	// Selection is the OSC 52 selection parameter as sent ("c", "p", "s",
	// "0"…"7", or several), or "" for the default.
	Selection string
	// Data is the content, base64 as sent (validated: only the base64
	// alphabet), ready to pass on in an OSC 52 of the caller's own.
	Data string
}

// clipboard handles OSC 52 ; selection ; data.
func (f *filter) clipboard(rest []byte) {
	sel, data, ok := bytes.Cut(rest, []byte{';'})
	if !ok || string(data) == "?" || len(sel) > 16 || !base64Text(data) || !selectionText(sel) {
		return
	}
	f.clip = &Clipboard{Selection: string(sel), Data: string(data)}
}

func base64Text(b []byte) bool {
	for _, c := range b {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
		default:
			return false
		}
	}
	return true
}

func selectionText(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '7') {
			return false
		}
	}
	return true
}

// stringLimit is how long the string being collected may grow.
func (f *filter) stringLimit() int {
	if f.str == strOSC && bytes.HasPrefix(f.strBuf, []byte("52;")) {
		return maxClipboard
	}
	return maxStringLen
}

// TakeClipboard returns the latest clipboard write the child asked for
// since the last call, and clears it.
func (s *Screen) TakeClipboard() (Clipboard, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.f.clip
	s.f.clip = nil
	if c == nil {
		return Clipboard{}, false
	}
	return *c, true
}
