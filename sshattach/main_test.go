package sshattach

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: Serve
// promises every connection, session and Attach is joined before it
// returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
