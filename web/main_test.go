package web

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: Serve
// promises every page's goroutines are joined before it returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
