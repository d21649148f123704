package mux

import (
	"errors"
	"testing"
)

// A session's summary is one line: a teardown's joined errors, one a
// line, are put on it with semicolons (escaped, a newline showed as \n).
func TestResultIsOneLine(t *testing.T) {
	r := Result{Name: "remote", Status: "closed", Err: errors.Join(errors.New("SIGHUP: no answer"), errors.New("SIGTERM: no answer"))}
	if got, want := r.String(), "remote: closed: SIGHUP: no answer; SIGTERM: no answer"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}
