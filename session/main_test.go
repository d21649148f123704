package session

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: session
// code starts readers, consumers and teardown goroutines, and each must be
// joined by whoever started it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
