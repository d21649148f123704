// Package exec opens sandboxes reached through any command-line tool that
// gives an interactive shell (kubectl exec -it, docker exec -it, cloud
// sandbox CLIs): it fills a command template's placeholders from the spec
// and runs the result on a local PTY opened by the function it is given
// (the local provider's Open, in sandmux).
//
// It owns the template: its syntax, its placeholders and their quoting (see
// Template). It does not own the PTY, the process group or their teardown;
// those are the local provider's, so contracts S1, S3 and C12 hold for the
// local CLI process. What the CLI does on the far side when it is signalled
// or killed (most close the remote session, which hangs up the remote
// shell) is beyond what sandmux can see or verify.
package exec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/sandmux/sandmux/providers"
)

// Provider opens PTYs by running a command template locally.
type Provider struct {
	openLocal func(ctx context.Context, spec providers.Spec) (providers.PTY, error)
}

// New returns an exec provider that runs the expanded template on a PTY
// that openLocal opens on this machine.
func New(openLocal func(ctx context.Context, spec providers.Spec) (providers.PTY, error)) *Provider {
	return &Provider{openLocal: openLocal}
}

// Descriptor registers the exec provider. It cannot read or write a
// workspace: with most CLIs the workspace is a path on the far side. A
// workspace sandmux chose itself (the config wrote none) is a directory
// under sandmux's data directory on this machine, so it is created before
// a start, for templates that cd into it.
var Descriptor = providers.Descriptor{
	Name:                   "exec",
	New:                    func(d providers.Deps) providers.Provider { return New(d.OpenLocal) },
	OptionKeys:             OptionKeys,
	CheckOptions:           providers.CheckWith(ParseOptions),
	Workspace:              providers.WorkspaceNone,
	CreateDefaultWorkspace: true,
}

// Options are the exec provider's settings, parsed by ParseOptions.
type Options struct {
	// Template is the command to run, with placeholders.
	Template Template
}

// Key describes one option key, for the config file's docs and checks.
type Key = providers.OptionKey

// OptionKeys lists every key ParseOptions accepts.
var OptionKeys = []Key{
	{Name: "template", Kind: "string or array of strings", Note: "required",
		Help: "The command that opens the sandbox's shell, run on a local terminal without a shell, with {name}, {workspace}, {command}, {term}, {cols} and {rows} filled in from the sandbox (shell-quoted where they fall inside quotes)."},
}

// ParseOptions validates the exec provider's options as decoded from TOML.
func ParseOptions(m map[string]any) (Options, error) {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "template" {
			errs = append(errs, fmt.Errorf("exec option %s: unknown key (the exec provider's only key is template)", k))
		}
	}
	var o Options
	switch v, ok := m["template"]; {
	case !ok || v == "" || v == nil:
		errs = append(errs, errors.New(`exec option template: missing: set template = "kubectl exec -it {name} -- sh" (or the command of your sandbox's CLI) in the exec provider's table`))
	default:
		t, err := ParseTemplate(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("exec option template: %w", err))
		} else if len(t.args) == 0 {
			errs = append(errs, errors.New("exec option template: it has no command (set it to the command that opens the sandbox's shell)"))
		}
		o.Template = t
	}
	return o, errors.Join(errs...)
}

// Open expands the template for spec and runs it on a local PTY. The spec's
// environment and terminal go to the local CLI (few CLIs pass them on: use
// {term} and the CLI's own flags). The CLI runs in the workspace when that
// is a directory on this machine, else in sandmux's working directory,
// since with most CLIs the workspace is a path on the far side.
func (p *Provider) Open(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
	o, err := ParseOptions(spec.Options)
	if err != nil {
		return nil, fmt.Errorf("open exec pty for %q: %w", spec.Name, err)
	}
	argv, err := o.Template.Expand(spec)
	if err != nil {
		return nil, fmt.Errorf("open exec pty for %q: %w", spec.Name, err)
	}
	run := spec
	run.Command, run.Options, run.Dir = argv, nil, localDir(spec.Dir)
	if p.openLocal == nil {
		return nil, fmt.Errorf("open exec pty for %q: the provider was made without a local PTY opener (make it with New)", spec.Name)
	}
	pty, err := p.openLocal(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("open exec pty for %q with %s: %w", spec.Name, shorten(shellJoin(argv)), err)
	}
	return pty, nil
}

func localDir(dir string) string {
	if fi, err := os.Stat(dir); dir != "" && err == nil && fi.IsDir() {
		return dir
	}
	return ""
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

var _ providers.Provider = (*Provider)(nil)
