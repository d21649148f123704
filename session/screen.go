package session

import "github.com/sandmux/sandmux/session/vt"

// A session's screen: the settled output parsed into it, a turn at a
// time, and its replies written back as the session's input.

// Turns hands out turns at parsing output into a screen. Take may wait;
// every Take is followed by one Give.
type Turns interface {
	Take()
	Give()
}

// TurnRunner is Turns that may run a turn's parse elsewhere (parsegate:
// on a thread of lower priority, for a pane nobody focuses): RunTurn
// takes a turn, runs parse in it and gives it back, and returns once
// parse did. The session hands it slices of runSlice bytes or more: a
// flood's, not a key's echo nor a paced pane's few bytes, for which the
// hand-off would cost more than the parse.
type TurnRunner interface {
	RunTurn(parse func())
}

// runSlice is the least slice a TurnRunner runs.
const runSlice = 16 << 10

// Pacer spaces a session's reads. Pace returns when the reader should
// read again, or when done is closed; it is called after a read too small
// to be a flood's. Hurry ends the wait in progress, or the next one: the
// session calls it once input reached the child, which may answer at
// once (a key's echo; a program that queries the terminal and waits for
// each reply before its next query would otherwise wait a pace for each).
type Pacer interface {
	Pace(done <-chan struct{})
	Hurry()
}

// parse feeds text to the session's screen, one turn per slice: a turn
// is one hold of the screen's lock, so a flood never holds it long. It
// parses even once teardown began: consumed unparsed, a flood would no
// longer hold its child back.
func (s *Session) parse(text string) {
	screen := s.opts.Screen
	if screen == nil {
		return
	}
	_, rows := screen.Size()
	limit := vt.SliceFor(rows)
	for len(text) > 0 {
		n := vt.SliceEnd(text, limit)
		slice := text[:n]
		switch {
		case s.runner != nil && n >= runSlice:
			s.runner.RunTurn(func() { screen.Write(slice) })
		case s.opts.Turns != nil:
			s.opts.Turns.Take()
			screen.Write(slice)
			s.opts.Turns.Give()
		default:
			screen.Write(slice)
		}
		text = text[n:]
	}
	if s.opts.Parsed != nil {
		s.opts.Parsed()
	}
}

// Screen is the session's screen, nil when it was started without one.
func (s *Session) Screen() *vt.Screen { return s.opts.Screen }

// inputWriter writes a screen's replies as the session's input.
type inputWriter struct{ s *Session }

func (w inputWriter) Write(p []byte) (int, error) {
	if err := w.s.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}
