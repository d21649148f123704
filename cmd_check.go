package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers/replay"
	"github.com/sandmux/sandmux/termsafe"
)

const checkUsage = "sandmux check [-c FILE]: validate the config and print the resolved sandboxes"

// runCheck validates the config and prints what sandmux would run, so a
// config can be tried without starting any sandbox.
func runCheck(_ context.Context, args []string, s stdio) int {
	flags := flag.NewFlagSet("check", flag.ContinueOnError)
	flags.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	file := flags.String("c", "", "read the config from `FILE` instead of searching for it")
	flags.Usage = func() {
		synopsis, _, _ := strings.Cut(checkUsage, ":")
		fmt.Fprintln(flags.Output(), "usage: "+synopsis)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(s.err, "sandmux check: unexpected argument %q\n", flags.Arg(0))
		flags.Usage()
		return exitUsage
	}
	cfg, err := config.Load(*file, providerRegistry)
	if err != nil {
		termsafe.Fprintln(s.err, err)
		return exitFailure
	}
	printConfig(s.out, cfg)
	return exitOK
}

// printConfig writes the config's source, then one block per sandbox.
// Every string of a config may hold anything: each is printed escaped
// (termsafe), commands as a shell reads them back (shellQuote).
func printConfig(w io.Writer, c *config.Config) {
	if c.Source == config.BuiltinSource {
		termsafe.Fprintf(w, "config: %s (none of %s exists)\n", config.BuiltinSource, strings.Join(config.SearchPath(), ", "))
	} else {
		termsafe.Fprintf(w, "config: %s\n", c.Source)
	}
	for _, s := range c.Sandboxes {
		command := "the provider's shell"
		switch file, _ := s.Options["file"].(string); {
		case s.Provider == replay.Descriptor.Name:
			command = "none: it plays " + shellQuote([]string{file}) // a replay pane runs nothing
		case len(s.Command) > 0:
			command = shellQuote(s.Command)
		}
		termsafe.Fprintf(w, "\nsandbox %s\n", s.Name)
		termsafe.Fprintf(w, "  provider:  %s\n", s.Provider)
		fmt.Fprintf(w, "  command:   %s\n", command) // shellQuote's output is safe as it is
		termsafe.Fprintf(w, "  workspace: %s\n", s.Workspace)
		termsafe.Fprintf(w, "  size:      %s (TERM=%s)\n", s.Size, s.Term)
		if len(s.Env) > 0 {
			var env []string
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				env = append(env, k+"="+s.Env[k])
			}
			fmt.Fprintf(w, "  env:       %s\n", shellQuote(env))
		}
		fmt.Fprintf(w, "  graces:    stop %s, kill %s, drain %s\n",
			config.ShortDuration(s.StopGrace), config.ShortDuration(s.KillGrace), config.ShortDuration(s.DrainGrace))
		termsafe.Fprintf(w, "  snapshot:  %s, keep %d, restore %s", s.Snapshot, s.SnapshotKeep, s.Restore)
		if len(s.SnapshotExclude) > 0 {
			fmt.Fprintf(w, ", exclude %s", shellQuote(s.SnapshotExclude))
		}
		fmt.Fprintln(w)
	}
}

// shellQuote joins words as a shell would need them typed, so the printed
// command can be pasted. It is safe to print: a word termsafe would escape
// is written $'…' with termsafe's escapes, which bash, zsh and ksh read
// back as the word.
func shellQuote(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		switch {
		case w != "" && !strings.ContainsFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}):
			quoted[i] = w
		case !termsafe.Safe(w):
			quoted[i] = "$'" + strings.ReplaceAll(termsafe.String(w), "'", `\'`) + "'"
		default:
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
