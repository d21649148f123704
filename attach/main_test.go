package attach

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: both
// ends of the wire start readers, and each must be joined.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
