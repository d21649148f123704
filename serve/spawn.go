package serve

import (
	"os"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/ui"
)

// spawner makes the panes a client opens from the keyboard: a local
// shell (the [providers.local] shell) or a command line with sh -c, both
// in the client's directory, and the config's sandboxes, offered when
// the config is a file of the user's (the built-in default's shells are
// what prefix c opens anyway).
func spawner(cfg *config.Config, table providers.Table, store string, env func(string) []string) *ui.Spawner {
	dir, _ := os.Getwd() // Best effort: "" means the child inherits the server's.
	s := &ui.Spawner{
		Dir: dir,
		Shell: func(dir string) ui.PaneSpec {
			return ui.PaneSpec{Name: "shell", Provider: local.Descriptor.Name, Spec: providers.Spec{Name: "shell", Dir: dir}, Env: env}
		},
		Command: func(dir, line string) ui.PaneSpec {
			name := firstWord(line)
			return ui.PaneSpec{Name: name, Provider: local.Descriptor.Name, Spec: providers.Spec{Name: name, Command: []string{"sh", "-c", line}, Dir: dir}, Env: env}
		},
	}
	if cfg.Source != config.BuiltinSource {
		for _, sb := range cfg.Sandboxes {
			s.Sandboxes = append(s.Sandboxes, sb.Name)
		}
		s.Sandbox = sandboxSpec(cfg, table, store, env)
	}
	return s
}
