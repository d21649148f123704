package mux

import (
	"fmt"
	"strings"
)

// Result is how one session ended, for the summary printed after exit.
type Result struct {
	Name   string
	Status string
	Saved  string // the snapshot written after teardown, if any
	Err    error
}

// String is the summary's line for the session.
func (r Result) String() string {
	s := fmt.Sprintf("%s: %s", r.Name, r.Status)
	if r.Saved != "" {
		s += ", snapshot " + r.Saved
	}
	if r.Err != nil {
		// A teardown's errors are joined one a line; the summary gives a
		// session one line, where an escaped newline read as a literal \n.
		s += ": " + strings.ReplaceAll(r.Err.Error(), "\n", "; ")
	}
	return s
}
