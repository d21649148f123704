// Package tty is this process's own terminal, as the commands that run
// on one use it (attach, record, screen, play): raw mode that is always
// undone, its input read on a goroutine that can be stopped at once
// (Pump), and its size followed on SIGWINCH (FollowSize).
//
// It owns no session and no wire: a pump hands its reads to a function
// (a session's Write, a frame writer), a follower its sizes. It does not
// bound sizes (package termsize does) nor decode keys.
package tty

import (
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
)

// MakeRaw puts in into raw mode when it is a terminal and returns what
// restores it (a no-op when in is not one).
func MakeRaw(in *os.File) (restore func() error, err error) {
	if in == nil || !term.IsTerminal(in.Fd()) {
		return func() error { return nil }, nil
	}
	st, err := term.MakeRaw(in.Fd())
	if err != nil {
		return nil, fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	return func() error {
		if err := term.Restore(in.Fd(), st); err != nil {
			return fmt.Errorf("restore the terminal: %w (run `stty sane` to fix it)", err)
		}
		return nil
	}, nil
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(f.Fd()) }

// Size is f's terminal size; ok is false when f has none, or a size
// that is no size (zero or less).
func Size(f *os.File) (w, h int, ok bool) {
	if f == nil {
		return 0, 0, false
	}
	w, h, err := term.GetSize(f.Fd())
	return w, h, err == nil && w > 0 && h > 0
}
