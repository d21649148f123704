package mux

import tea "charm.land/bubbletea/v2"

// rulesNowMsg reads, for the rules, the screens of the panes whose last
// frame drew a key's echo (paneState.ruleNow).
//
// The rules read a screen at most every ruleEvery, so a key's echo, a
// typist's pace after the last, put its read off to a deadline, and the
// state timer woke for it: with one [[rule]], 8.3 context switches of the
// server a key against 4.7 without (bench/keys.py, keys 150 ms apart).
// Read in the Update that drew the echo, the read held the echo's frame
// on its way to the terminal (some 0.07 ms, the same keys): the server's
// thread yields to the kernel's worker that carries it only once the
// model is free. So the read comes in an Update of its own, right after
// that (TakeDeferred).
type rulesNowMsg struct{}

// TakeDeferred is the message to deliver once the model is free and the
// thread that drew an echo stepped aside (server's loop): rulesNowMsg,
// when a frame asked for it since the last. Delivered there on the same
// goroutine, it costs no hand-off, whose wake-up of a thread was the
// state timer's all over again. Whatever runs the model should ask after
// every Update and deliver what it gets; one that does not has those
// screens read as any other once that Update is over.
func (s *Shared) TakeDeferred() tea.Msg {
	if !s.rulesNow {
		return nil
	}
	s.rulesNow = false
	return rulesNowMsg{}
}

// readEchoes reads the screens whose frames drew an echo, and narrows
// the sync after it to those panes.
func (s *Shared) readEchoes() {
	s.NarrowStates()
	now := s.now()
	for _, p := range s.panes {
		if p.st.ruleNow && p.st.track != nil {
			s.touch(p)
			if p.screen == nil {
				p.st.ruleNow = false
				continue
			}
			s.readScreen(p, now)
		}
	}
}

// readingEcho reports whether p's screen waits for rulesNowMsg: it drew
// an echo in this Update.
func (s *Shared) readingEcho(p *Pane) bool {
	return p.st.ruleNow && p.st.ruleNowIn == s.updates
}
