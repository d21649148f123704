package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/human"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/providers/replay"
	"github.com/sandmux/sandmux/serve"
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
	cfg, err := config.Load(*file, all.Registry)
	if err != nil {
		termsafe.Fprintln(s.err, err)
		return exitFailure
	}
	printConfig(s.out, cfg)
	if problems := commandProblems(cfg); len(problems) > 0 {
		for _, p := range problems {
			termsafe.Fprintln(s.err, "sandmux check:", p)
		}
		return exitFailure
	}
	return exitOK
}

// commandProblems are the local sandboxes whose command is not found on
// PATH: the config is valid, but their panes would fail to start.
func commandProblems(cfg *config.Config) []string {
	var out []string
	for _, s := range cfg.Sandboxes {
		if s.Provider != local.Descriptor.Name || len(s.Command) == 0 {
			continue
		}
		if prog, ok := missingProgram(s.Command); !ok {
			out = append(out, fmt.Sprintf("sandbox %s: %s is not found on PATH (install it, or give its full path)", s.Name, prog))
		}
	}
	return out
}

// missingProgram reports the program argv runs and whether it is found:
// for a shell's command line (sh -c LINE), its first word, as the shell
// finds it (builtins included); else argv[0].
func missingProgram(argv []string) (string, bool) {
	if len(argv) == 3 && argv[1] == "-c" && filepath.Base(argv[0]) == "sh" {
		words := strings.Fields(argv[2])
		if len(words) > 1 && words[0] == "exec" {
			words = words[1:]
		}
		if len(words) == 0 || strings.ContainsAny(words[0], serve.ShellChars) {
			return "", true // a line the shell reads as more than a program's name
		}
		// The shell says, builtins and functions included; its own
		// failure to run counts as found, so check never blames a program
		// for it.
		err := exec.Command(argv[0], "-c", `command -v "$1" >/dev/null`, "sh", words[0]).Run()
		var exit *exec.ExitError
		return words[0], !errors.As(err, &exit)
	}
	_, err := exec.LookPath(argv[0])
	return argv[0], err == nil
}

// printConfig writes the config's source, then one block per sandbox.
// Every string of a config may hold anything: each is printed escaped
// (termsafe), commands as a shell reads them back (termsafe.ShellQuote).
func printConfig(w io.Writer, c *config.Config) {
	if c.Source == config.BuiltinSource {
		termsafe.Fprintf(w, "config: %s (none of %s exists)\n", config.BuiltinSource, strings.Join(config.SearchPath(), ", "))
	} else {
		termsafe.Fprintf(w, "config: %s\n", c.Source)
	}
	printServer(w, c.Server)
	for _, s := range c.Sandboxes {
		command := "the provider's shell"
		switch file, _ := s.Options["file"].(string); {
		case s.Provider == replay.Descriptor.Name:
			command = "none: it plays " + termsafe.ShellQuote([]string{file}) // a replay pane runs nothing
		case len(s.Command) > 0:
			command = termsafe.ShellQuote(s.Command)
		}
		termsafe.Fprintf(w, "\nsandbox %s\n", s.Name)
		termsafe.Fprintf(w, "  provider:  %s\n", s.Provider)
		fmt.Fprintf(w, "  command:   %s\n", command) // ShellQuote's output is safe as it is
		termsafe.Fprintf(w, "  workspace: %s%s\n", s.Workspace, workspaceNote(s))
		termsafe.Fprintf(w, "  size:      %s (TERM=%s)\n", s.Size, s.Term)
		if len(s.Env) > 0 {
			var env []string
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				env = append(env, k+"="+s.Env[k])
			}
			fmt.Fprintf(w, "  env:       %s\n", termsafe.ShellQuote(env))
		}
		fmt.Fprintf(w, "  graces:    stop %s, kill %s, drain %s\n",
			human.Duration(s.StopGrace), human.Duration(s.KillGrace), human.Duration(s.DrainGrace))
		termsafe.Fprintf(w, "  snapshot:  %s, keep %d, restore %s", s.Snapshot, s.SnapshotKeep, s.Restore)
		if len(s.SnapshotExclude) > 0 {
			fmt.Fprintf(w, ", exclude %s", termsafe.ShellQuote(s.SnapshotExclude))
		}
		fmt.Fprintln(w)
	}
}

// workspaceNote says when a local workspace does not exist yet.
func workspaceNote(s config.Sandbox) string {
	if s.Provider != local.Descriptor.Name {
		return ""
	}
	if _, err := os.Stat(s.Workspace); errors.Is(err, fs.ErrNotExist) {
		return " (does not exist: created at the start)"
	}
	return ""
}

// printServer writes [server]'s settings, defaults included.
func printServer(w io.Writer, s config.ServerConfig) {
	fmt.Fprintln(w, "\nserver")
	termsafe.Fprintf(w, "  on_hangup: %s\n", s.OnHangup)
	if s.SSHListen == "" {
		fmt.Fprintln(w, "  ssh:       off (ssh_listen is not set)")
	} else {
		termsafe.Fprintf(w, "  ssh:       listen %s, keys %s, read-only keys %s\n", s.SSHListen, orNone(s.SSHAuthorizedKeys), orNone(s.SSHReadOnlyKeys))
	}
	printWeb(w, s)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// printWeb is sandmux check's line of the web client.
func printWeb(w io.Writer, s config.ServerConfig) {
	switch {
	case s.HTTPListen == "":
		fmt.Fprintln(w, "  web:       off (http_listen is not set)")
	case config.IsLoopback(s.HTTPListen):
		termsafe.Fprintf(w, "  web:       listen %s (pages need a token: sandmux ctl token new)\n", s.HTTPListen)
	default:
		termsafe.Fprintf(w, "  web:       listen %s, reached from other machines: plain HTTP, put it behind TLS\n", s.HTTPListen)
	}
}
