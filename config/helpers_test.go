package config

import (
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
