package serve

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/ui"
	"github.com/sandmux/sandmux/workspace"
)

// ConfigFile is the absolute path of the config cfg was read from, ""
// for the built-in one.
func ConfigFile(cfg *config.Config) string {
	if cfg.Source == config.BuiltinSource {
		return ""
	}
	if abs, err := filepath.Abs(cfg.Source); err == nil {
		return abs
	}
	return cfg.Source // Best effort: a relative name still names it.
}

// warnings collects the providers' warnings (an SSH host key not
// checked), each once, for the summary every client is shown at the
// quit: a server has no terminal of its own to print them on.
type warnings struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen[msg] {
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		w.seen[msg] = true
		w.list = append(w.list, msg)
	}
}

// sandboxPanes turns the config's sandboxes into panes, with workspace
// restore before start and snapshots after teardown as their policies say.
func sandboxPanes(cfg *config.Config, table providers.Table, store string) []ui.PaneSpec {
	ws := workspace.Policy{Registry: all.Registry, Store: store, Providers: table}
	specs := make([]ui.PaneSpec, 0, len(cfg.Sandboxes))
	for _, sb := range cfg.Sandboxes {
		opts := session.Options{StopGrace: sb.StopGrace, KillGrace: sb.KillGrace, DrainGrace: sb.DrainGrace, AfterTeardown: ws.Hook(sb)}
		specs = append(specs, ui.PaneSpec{
			Name:     sb.Name,
			Provider: sb.Provider,
			Spec:     sb.Spec(),
			Options:  opts,
			Prepare:  ws.Prepare(sb),
			// The config's pane: the config is where to look.
			StartHint: "check the command and workspace in the config",
		})
	}
	return specs
}

// adHocPanes opens one local pane per command, in the current directory.
func adHocPanes(cmds []string) []ui.PaneSpec {
	dir, _ := os.Getwd() // Best effort: "" means the child inherits ours.
	specs := make([]ui.PaneSpec, 0, len(cmds))
	names := AdHocNames(cmds)
	for i, c := range cmds {
		name := names[i]
		specs = append(specs, ui.PaneSpec{
			Name:     name,
			Provider: local.Descriptor.Name,
			Spec:     providers.Spec{Name: name, Command: commandLine(c), Dir: dir},
		})
	}
	return specs
}

// maxNameWords bounds how many of a command's words its pane's name takes.
const maxNameWords = 3

// AdHocNames names each command's pane: a short name, the command's first
// word, as tmux names windows (prefix , renames it); when other commands
// start with the same word, as many more words as tell them apart, up to
// maxNameWords. Panes whose names still match get -2, -3 from the UI.
func AdHocNames(cmds []string) []string {
	words := make([][]string, len(cmds))
	for i, c := range cmds {
		for _, w := range strings.Fields(c) {
			if w = strings.Trim(w, ";&|()<>'\"`"); w != "" {
				words[i] = append(words[i], w)
			}
		}
	}
	prefix := func(i, n int) string {
		if len(words[i]) == 0 {
			return firstWord(cmds[i])
		}
		return strings.Join(words[i][:min(n, len(words[i]))], " ")
	}
	names := make([]string, len(cmds))
	for i := range cmds {
		for n := 1; n <= maxNameWords; n++ {
			names[i] = prefix(i, n)
			shared := false
			for j := range cmds {
				shared = shared || j != i && prefix(j, n) == names[i]
			}
			if !shared {
				break
			}
		}
	}
	return names
}

// runPane is a local pane running argv, for ctl run; without a name it
// is called by the command's first word. One argument is a command line,
// as sandmux 'CMD' takes it.
func runPane(name string, argv []string) ui.PaneSpec {
	if len(argv) == 1 {
		argv = commandLine(argv[0])
	}
	if name == "" {
		name = filepath.Base(argv[0])
		if len(argv) >= 3 && argv[1] == "-c" {
			name = firstWord(argv[2]) // sh -c 'CMD': the command's own word
		}
	}
	dir, _ := os.Getwd() // Best effort: "" means the child inherits ours.
	return ui.PaneSpec{Name: name, Provider: local.Descriptor.Name, Spec: providers.Spec{Name: name, Command: argv, Dir: dir}}
}

// ShellChars are the characters that make a command line the shell's.
const ShellChars = " \t\n'\"\\$`;&|<>()*?[]{}~#=!"

// commandLine is how a command given as one string runs, for sandmux
// 'CMD' and ctl run 'CMD' alike: a plain word is the program itself (so a
// missing one fails the start, saying so), anything else is run by sh -c.
func commandLine(cmd string) []string {
	if cmd != "" && !strings.ContainsAny(cmd, ShellChars) {
		return []string{cmd}
	}
	return []string{"sh", "-c", cmd}
}

func firstWord(cmd string) string {
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return cmd
}
