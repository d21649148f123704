package server

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// A terminal gone fails the last frame's write and the exit's with the
// same broken pipe: the log line says it once.
func TestJoinDistinctSaysABrokenPipeOnce(t *testing.T) {
	pipe := func() error { return errors.Join(errors.New("write client 3"), syscall.EPIPE) }
	err := joinDistinct(pipe(), pipe())
	if n := strings.Count(err.Error(), "broken pipe"); n != 1 {
		t.Errorf("the joined error says broken pipe %d times: %q", n, err)
	}
	other := errors.New("restore the modes: input/output error")
	if err := joinDistinct(pipe(), nil, other); !strings.Contains(err.Error(), "broken pipe") || !strings.Contains(err.Error(), "input/output") {
		t.Errorf("distinct errors were lost: %q", err)
	}
	if joinDistinct(nil, nil) != nil {
		t.Error("no error joined to one")
	}
}
