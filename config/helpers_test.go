package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/docker"
	"github.com/sandmux/sandmux/providers/exec"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/providers/replay"
	"github.com/sandmux/sandmux/providers/ssh"
)

// testRegistry is the providers as sandmux registers them, for tests that
// decode configs naming them.
var testRegistry = providers.Registry{local.Descriptor, ssh.Descriptor, docker.Descriptor, exec.Descriptor, replay.Descriptor}

var (
	providerNames   = testRegistry.Names()
	remoteProviders = remotesOf(testRegistry)
)

func parseConfig(name string, data []byte) (*Config, error) { return parse(name, data, testRegistry) }
func loadConfig(path string) (*Config, error)               { return Load(path, testRegistry) }

// hermetic points every directory the config reads at a fresh temp dir and
// returns it.
func hermetic(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("SHELL", "/bin/sh")
	t.Chdir(dir)
	return dir
}

// repoDir is the repository's root, where the example file lives; tests
// that call hermetic leave the package directory.
var repoDir = func() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Dir(dir)
}()
