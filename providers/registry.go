package providers

import (
	"context"
	"errors"
	"slices"
)

// Descriptor is what sandmux knows of one provider beyond its Provider
// value: its name in the config, how to make it, the keys of its options
// table and where its sandboxes' workspaces live. Each provider package
// exports one; package main lists them once, and the provider table, the
// config's provider names and option checks and the workspace policy are
// all read from that list.
type Descriptor struct {
	// Name is the provider's name as the config writes it.
	Name string
	// New makes the provider from what the program gives every provider.
	New func(Deps) Provider
	// OptionKeys are the keys of the provider's own options table, which
	// CheckOptions checks; both are nil when the config's own typed
	// [providers.NAME] table holds the provider's settings (local).
	OptionKeys   []OptionKey
	CheckOptions func(map[string]any) error
	// Workspace says where a sandbox's workspace is and so whether
	// snapshots can read it and restores write it.
	Workspace WorkspaceAccess
	// CreateDefaultWorkspace says that a workspace sandmux chose itself
	// (under its data directory, because the config wrote none) is a
	// directory on this machine to be created before a start, even though
	// a workspace the config writes is the far side's (exec).
	CreateDefaultWorkspace bool
}

// WorkspaceAccess is where a provider's workspaces are.
type WorkspaceAccess uint8

const (
	// WorkspaceNone: the provider can neither read nor write a workspace,
	// so its sandboxes take no snapshots and restore none.
	WorkspaceNone WorkspaceAccess = iota
	// WorkspaceDir: the workspace is a directory on this machine, created
	// before a start and read and written directly.
	WorkspaceDir
	// WorkspaceStream: the workspace is on the sandbox's side, read and
	// written as tar streams through the provider's Workspace interface.
	WorkspaceStream
)

// CanSnapshot reports whether snapshots can read the provider's
// workspaces (and restores write them).
func (d Descriptor) CanSnapshot() bool { return d.Workspace != WorkspaceNone }

// LocalWorkspace reports whether a sandbox's workspace is a directory on
// this machine that sandmux creates; chosen says sandmux chose it, the
// config wrote none.
func (d Descriptor) LocalWorkspace(chosen bool) bool {
	return d.Workspace == WorkspaceDir || chosen && d.CreateDefaultWorkspace
}

// Deps is what the program hands every provider's constructor; each takes
// what it needs.
type Deps struct {
	// Shell is the local shell for sandboxes without a command; "" means
	// the local provider's choice.
	Shell string
	// Warn receives warnings to show the user once the UI has exited.
	Warn func(string)
	// OpenLocal opens a PTY on this machine, for providers that run a
	// local CLI (exec).
	OpenLocal func(ctx context.Context, spec Spec) (PTY, error)
	// Server is unique to the server the providers run in: a provider
	// marks with it what can outlive the server (docker: a label on the
	// containers it creates), so that the next server can clear what a
	// server that died left (package reap). "" marks nothing.
	Server string
}

// Registry is the list of providers sandmux knows, in the order the config
// docs name them.
type Registry []Descriptor

// Lookup returns the descriptor called name.
func (r Registry) Lookup(name string) (Descriptor, bool) {
	i := slices.IndexFunc(r, func(d Descriptor) bool { return d.Name == name })
	if i < 0 {
		return Descriptor{}, false
	}
	return r[i], true
}

// Names returns the providers' names in the registry's order.
func (r Registry) Names() []string {
	names := make([]string, len(r))
	for i, d := range r {
		names[i] = d.Name
	}
	return names
}

// Table makes every provider of the registry.
func (r Registry) Table(deps Deps) Table {
	t := make(Table, len(r))
	for _, d := range r {
		t[d.Name] = d.New(deps)
	}
	return t
}

// ErrNoWorkspace is wrapped by a Workspace's ExportWorkspace when the
// workspace does not exist (yet): a restore may treat it as empty.
var ErrNoWorkspace = errors.New("the workspace does not exist")

// CheckWith turns a provider's options parser into a Descriptor's
// CheckOptions: the options are checked by parsing them.
func CheckWith[O any](parse func(map[string]any) (O, error)) func(map[string]any) error {
	return func(m map[string]any) error { _, err := parse(m); return err }
}
