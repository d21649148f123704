package vt

import (
	"bytes"
)

// MarkKind is an escape sequence that says what the program is doing.
type MarkKind uint8

// The marks a screen keeps for the UI's state tracker.
const (
	MarkBell        MarkKind = iota + 1 // BEL outside a sequence
	MarkNotify                          // OSC 9 or OSC 777 notify; Text is its text
	MarkProgress                        // OSC 9;4;State;N (ConEmu)
	MarkPrompt                          // OSC 133;A or B: the shell shows its prompt
	MarkCommand                         // OSC 133;C: the shell runs a command
	MarkCommandDone                     // OSC 133;D[;N]: it ended, with N when Known
)

// Mark is one such sequence. Text is as sent: the caller escapes it.
type Mark struct {
	Kind  MarkKind
	Text  string
	State int  // progress: 0 remove, 1 set, 2 error, 3 indeterminate, 4 paused
	N     int  // progress: percent; done: exit code
	Known bool // done: N is known
}

// maxMarks bounds the marks kept between takes: only the latest say what
// the program does now, so the oldest go.
const maxMarks = 16

func (f *filter) mark(m Mark) {
	if len(f.marks) == maxMarks {
		copy(f.marks, f.marks[1:])
		f.marks = f.marks[:maxMarks-1]
	}
	f.marks = append(f.marks, m)
}

// conEmuCommand reports whether the field after "9;" is a number alone:
// ConEmu's OSC 9 commands. A notification's text is not ("9;3 tests
// failed" notifies).
func conEmuCommand(sub []byte) bool {
	_, ok := atoi(sub)
	return ok
}

// progress handles OSC 9;4;st;pct, ConEmu's progress report.
func (f *filter) progress(rest []byte) {
	st, rest, _ := bytes.Cut(rest, []byte{';'})
	pct, _, _ := bytes.Cut(rest, []byte{';'})
	n, ok := atoi(st)
	if !ok || n > 4 {
		return
	}
	p, _ := atoi(pct)
	f.mark(Mark{Kind: MarkProgress, State: n, N: min(p, 100)})
}

// shellMark handles OSC 133, the shell-integration marks (FinalTerm's).
func (f *filter) shellMark(rest []byte) {
	kind, args, _ := bytes.Cut(rest, []byte{';'})
	switch string(kind) {
	case "A", "B":
		f.mark(Mark{Kind: MarkPrompt})
	case "C":
		f.mark(Mark{Kind: MarkCommand})
	case "D":
		code, _, _ := bytes.Cut(args, []byte{';'})
		n, ok := atoi(code)
		f.mark(Mark{Kind: MarkCommandDone, N: n, Known: ok && len(code) > 0})
	}
}

// TakeMarks appends the marks the program sent since the last call, in
// order, to dst, and forgets them.
func (s *Screen) TakeMarks(dst []Mark) []Mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.f.marks...)
	clear(s.f.marks)
	s.f.marks = s.f.marks[:0]
	return dst
}

// LastRows appends the text of the frame's last n rows that end at its
// last non-blank row, oldest first, trailing blanks trimmed: what a
// screen rule reads (a prompt box's blank margin below is not its end).
func (f *Frame) LastRows(n int, dst []string) []string {
	last := f.Rows - 1
	for last >= 0 && rowBlank(f, last) {
		last--
	}
	var buf []byte
	for y := max(0, last-n+1); y <= last; y++ {
		buf = RenderRowText(buf[:0], f, y) // its trailing blanks trimmed
		dst = append(dst, string(buf))
	}
	return dst
}
