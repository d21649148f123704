package session

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: session
// code starts readers, consumers and teardown goroutines, and each must be
// joined by whoever started it.
// No pane cgroup of the local provider may outlive the tests either.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if left := leftCgroups(); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: pane cgroups left behind: %v\n", left)
			code = max(code, 1)
		}
		os.Exit(code)
	}))
}
