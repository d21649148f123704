package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// sandmuxBin is the sandmux binary built once for the end-to-end tests.
var sandmuxBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if fuzzing() {
		// A fuzz target here needs no binary, and every fuzz worker runs
		// TestMain: a race build in each would eat the fuzzing time.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "sandmux-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sandmuxBin = filepath.Join(dir, "sandmux")
	// -buildvcs=auto: the machine may turn VCS stamping off, and --version
	// reports the revision.
	build := exec.Command("go", "build", "-race", "-buildvcs=auto", "-o", sandmuxBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build sandmux for the end-to-end tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // Best effort: a temp dir.
	os.Exit(code)
}

// fuzzing reports whether this run fuzzes (a coordinator or a worker).
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// need skips the test with a loud reason when a tool is missing, and fails
// it instead when SANDMUX_REQUIRE_ALL=1 (as in CI), where every real-part
// test must run.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			msg := fmt.Sprintf("SKIPPED: %s is not installed (apt-get install it; .ci/run does): %v", tool, err)
			if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}
