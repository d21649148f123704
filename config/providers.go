package config

// The remote providers' options. Each provider package owns its keys
// (names, defaults, checks); the config only gathers them: a
// [providers.NAME] table of defaults, and a table of the same name inside
// a [[sandbox]] for that sandbox's own keys, merged over them.
//
//	[providers.ssh]          # defaults for every ssh sandbox
//	known_hosts = ["~/.ssh/known_hosts"]
//
//	[[sandbox]]
//	name = "build-host"
//	provider = "ssh"
//	ssh = { host = "dev@build.example" }

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sandmux/sandmux/providers"
)

// remoteProvider is a provider whose options its own package parses.
type remoteProvider struct {
	name  string
	keys  []providers.OptionKey
	check func(map[string]any) error
	// canSnapshot says the provider can read and write workspaces.
	canSnapshot bool
}

// remotesOf returns the providers of reg with an options table of their
// own.
func remotesOf(reg providers.Registry) []remoteProvider {
	var rs []remoteProvider
	for _, d := range reg {
		if d.CheckOptions != nil {
			rs = append(rs, remoteProvider{d.Name, d.OptionKeys, d.CheckOptions, d.CanSnapshot()})
		}
	}
	return rs
}

func remoteProviderNamed(reg providers.Registry, name string) (remoteProvider, bool) {
	for _, r := range remotesOf(reg) {
		if r.name == name {
			return r, true
		}
	}
	return remoteProvider{}, false
}

// takeProviderTables removes the per-provider tables from a [[sandbox]]
// table (so the sandbox's own keys can be checked as usual) and returns
// them by provider name.
func (p *problems) takeProviderTables(t map[string]any, at string) (map[string]any, map[string]map[string]any) {
	rest := maps.Clone(t)
	tables := map[string]map[string]any{}
	for _, r := range remotesOf(p.reg) {
		if _, ok := t[r.name]; !ok {
			continue
		}
		delete(rest, r.name)
		if pt := p.table(t, at, r.name); pt != nil {
			tables[r.name] = pt
		}
	}
	return rest, tables
}

// remoteOptions merges a sandbox's provider table over the provider-wide
// one, and reports a table meant for another provider.
func (p *problems) remoteOptions(c *Config, s *Sandbox, at string, own map[string]map[string]any) {
	for name := range own {
		if name != s.Provider {
			p.add(joinKey(at, name), fmt.Errorf("this sandbox's provider is %s (set provider = %q, or remove this table)", literal(s.Provider), name))
		}
	}
	if _, ok := remoteProviderNamed(p.reg, s.Provider); !ok {
		return
	}
	opts := maps.Clone(c.Providers.Remote[s.Provider])
	if opts == nil {
		opts = map[string]any{}
	}
	maps.Copy(opts, own[s.Provider])
	s.Options = opts
}

// checkRemoteTables reports unknown keys in the [providers.NAME] tables
// (their values are checked with each sandbox that uses them).
func (c *Config) checkRemoteTables(p *problems) {
	for _, r := range remotesOf(p.reg) {
		for key := range c.Providers.Remote[r.name] {
			if !slices.ContainsFunc(r.keys, func(k providers.OptionKey) bool { return k.Name == key }) {
				p.add(joinKey(joinKey("providers", r.name), key), fmt.Errorf("unknown key (the %s provider takes %s)", r.name, quoteAll(optionKeyNames(r.keys))))
			}
		}
	}
}

// checkRemoteSandbox has the provider check a sandbox's merged options,
// blaming the sandbox's provider table, else [providers.NAME], else the
// provider key.
func (c *Config) checkRemoteSandbox(p *problems, s *Sandbox, at string) {
	r, ok := remoteProviderNamed(p.reg, s.Provider)
	if !ok {
		return
	}
	if !r.canSnapshot && (s.Snapshot != SnapshotNever || s.Restore != RestoreOff) {
		key := joinKey(at, "snapshot")
		if s.Snapshot == SnapshotNever {
			key = joinKey(at, "restore")
		}
		p.add(key, fmt.Errorf(`the %s provider cannot read or write a workspace (set snapshot = "never" and restore = false, or use a provider that can: %s)`, r.name, snapshotProviders(p.reg)))
	}
	if err := r.check(s.Options); err != nil {
		key := joinKey(at, r.name)
		switch {
		case c.lines.has(key):
		case c.lines.has(joinKey("providers", r.name)):
			key = joinKey("providers", r.name)
		default:
			key = joinKey(at, "provider")
		}
		p.add(key, fmt.Errorf("%w (write the %s keys in a table %s = { … } in the sandbox)", err, r.name, r.name))
	}
}

func optionKeyNames(keys []providers.OptionKey) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names
}

// snapshotProviders names the providers whose workspaces snapshots can
// read, for errors.
func snapshotProviders(reg providers.Registry) string {
	var names []string
	for _, d := range reg {
		if d.CanSnapshot() {
			names = append(names, d.Name)
		}
	}
	return quoteAll(names)
}
