// Package all is every provider sandmux knows, in one list: the
// Registry that the provider table, the config's provider names and
// option checks and the workspace policy are all read from.
//
// It owns the list and the table's wiring alone; each provider is its own
// package's, and what a config asks of one is the config's.
package all

import (
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/docker"
	"github.com/sandmux/sandmux/providers/exec"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/providers/replay"
	"github.com/sandmux/sandmux/providers/ssh"
)

// Registry is every provider, in the order the docs name them.
var Registry = providers.Registry{local.Descriptor, ssh.Descriptor, docker.Descriptor, exec.Descriptor, replay.Descriptor}

// Table is every provider sandmux can open panes with: shell is the
// local provider's ([providers.local] shell), warnings (an SSH host key
// not being checked) go to warn, and instance, when not "", marks what
// the providers make that could outlive the server that runs them.
func Table(shell string, warn func(string), instance string) providers.Table {
	return Registry.Table(providers.Deps{
		Shell: shell, Warn: warn, Server: instance,
		// exec runs its CLI on a local PTY; the shell is never used there,
		// since exec always gives a command.
		OpenLocal: local.New("").Open,
	})
}
