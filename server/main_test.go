package server

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/record"
)

// The recording's shared coders are made before any synctest bubble
// (record.Warm).
func TestMain(m *testing.M) {
	record.Warm()
	goleak.VerifyTestMain(m)
}
