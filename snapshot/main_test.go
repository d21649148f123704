package snapshot

import (
	"flag"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	flag.Parse()
	// Go minimizes each new fuzz input for up to 60 s by default, byte by
	// byte; an input of a few KiB takes that whole minute, so a 60 s run
	// would only minimize. Cap it unless the caller chose a value.
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.fuzzminimizetime" })
	if !explicit {
		if err := flag.Set("test.fuzzminimizetime", "2s"); err != nil {
			os.Exit(2) // The flag exists in every Go test binary.
		}
	}
	goleak.VerifyTestMain(m)
}
