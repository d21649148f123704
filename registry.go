package main

import (
	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/docker"
	"github.com/sandmux/sandmux/providers/exec"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/providers/replay"
	"github.com/sandmux/sandmux/providers/ssh"
)

// providerRegistry is every provider sandmux knows, in the order the docs
// name them: the one list that the provider table, the config's provider
// names and option checks and the workspace policy are all read from.
var providerRegistry = providers.Registry{local.Descriptor, ssh.Descriptor, docker.Descriptor, exec.Descriptor, replay.Descriptor}

// providerTable is every provider sandmux can open panes with. Warnings
// (an SSH host key not being checked) go to warn.
func providerTable(cfg *config.Config, warn func(string)) providers.Table {
	return providerTableFor(cfg, warn, "")
}

// providerTableFor is providerTable for the server instance, which marks
// what the providers make that could outlive it.
func providerTableFor(cfg *config.Config, warn func(string), instance string) providers.Table {
	return providerRegistry.Table(providers.Deps{
		Shell: cfg.Providers.Local.Shell, Warn: warn, Server: instance,
		// exec runs its CLI on a local PTY; the shell is never used there,
		// since exec always gives a command.
		OpenLocal: local.New("").Open,
	})
}
