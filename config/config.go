package config

import (
	_ "embed" // for the built-in default config
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/status"
)

// defaultConfig is used when no config file is found: a few local shells.
//
//go:embed default_config.toml
var defaultConfig []byte

// BuiltinSource is Config.Source for the embedded default.
const BuiltinSource = "built-in default"

// Config is the resolved configuration: every default applied, every value
// checked and normalised.
type Config struct {
	UI        UIConfig
	Server    ServerConfig
	Record    RecordConfig
	Sandboxes []Sandbox
	// Keys are the [keys] bindings, keys normalised; keysAt is where
	// each was written, for errors.
	Keys   []keys.Binding
	keysAt []string
	// Rules are the [[rule]] tables, compiled, in the file's order.
	Rules     []*status.Rule
	Providers ProvidersConfig
	// Source is the file the config was read from, or BuiltinSource.
	Source string

	// reg is the providers a sandbox may name, as Load was given them.
	reg providers.Registry

	// defaults is [defaults] resolved, kept so validate can check values no
	// sandbox inherits; nil for a Config built in code.
	defaults *Sandbox
	// lines says where each key was written, for errors.
	lines keyLines
}

// UIConfig is the [ui] table.
type UIConfig struct {
	// Prefix is the key that starts a sandmux command, as Bubble Tea names
	// keys ("ctrl+b").
	Prefix string
	// FPS caps how often the UI draws while panes change.
	FPS int
	// Scrollback is how many lines of history each pane keeps.
	Scrollback int
	// ActivityWindow: output or CPU within it makes a pane working.
	ActivityWindow time.Duration
	// AttentionAfter is how long a pane must be quiet, after activity,
	// before it is idle.
	AttentionAfter time.Duration
	// Notify is how a pane entering waiting, done or failed is told:
	// "terminal" (OSC 9), "bell", "command" (NotifyCommand).
	Notify []string
	// NotifyCommand is run for each such entry, with SANDMUX_PANE,
	// SANDMUX_NAME, SANDMUX_STATE and SANDMUX_REASON set, within
	// NotifyTimeout.
	NotifyCommand []string
	NotifyTimeout time.Duration
	// Clipboard is "write" (a pane's clipboard writes, OSC 52, reach the
	// terminals of clients that may type), "all" (read-only clients'
	// too) or "off". Reads are never answered.
	Clipboard string
	// Bell and Notifications say whose bells and notifications reach the
	// user's terminal: "any" pane's, "other" panes' than the focused one,
	// or "none".
	Bell, Notifications string
}

// ProvidersConfig holds the provider-wide settings of each [providers.NAME]
// table. Later providers add their tables here and rows to providerOptions.
type ProvidersConfig struct {
	Local LocalConfig
	// Remote holds the [providers.NAME] tables of the remote providers,
	// whose keys their own packages check (config_providers.go).
	Remote map[string]map[string]any
}

// LocalConfig is the [providers.local] table.
type LocalConfig struct {
	// Shell is run for sandboxes without a command; empty means the local
	// provider's choice ($SHELL, else /bin/sh).
	Shell string
}

// Sandbox is one resolved [[sandbox]]: its own keys over [defaults] over the
// built-in defaults.
type Sandbox struct {
	Name     string
	Provider string
	// Command is the argv to run; a command written as a string is already
	// ["sh", "-c", cmd]. Nil means the provider's shell.
	Command []string
	// Workspace is the working directory: absolute and clean once validated.
	Workspace string
	// WorkspaceChosen says the config wrote no workspace, so Workspace is
	// the default sandmux chose under its data directory on this machine.
	WorkspaceChosen bool
	Env             map[string]string
	Size            providers.Size
	Term            string
	// StopGrace is how long teardown waits after SIGHUP before SIGTERM.
	StopGrace time.Duration
	// KillGrace is how long teardown waits after SIGTERM before SIGKILL.
	KillGrace time.Duration
	// DrainGrace is how long output may keep draining after the command
	// exits while a background child holds the terminal open.
	DrainGrace      time.Duration
	Snapshot        SnapshotPolicy
	Restore         RestorePolicy
	SnapshotExclude []string
	SnapshotKeep    int
	// Options is the sandbox's provider table, by key.
	Options map[string]any
}

// SnapshotPolicy says when a sandbox's workspace is archived.
type SnapshotPolicy string

// Snapshot policies, spelled as in the config.
const (
	SnapshotNever   SnapshotPolicy = "never"
	SnapshotOnClose SnapshotPolicy = "on-close"
	SnapshotOnQuit  SnapshotPolicy = "on-quit"
	SnapshotAlways  SnapshotPolicy = "always"
)

var snapshotPolicies = []SnapshotPolicy{SnapshotNever, SnapshotOnClose, SnapshotOnQuit, SnapshotAlways}

// OnClose reports whether closing the sandbox's pane takes a snapshot.
func (p SnapshotPolicy) OnClose() bool { return p == SnapshotOnClose || p == SnapshotAlways }

// OnQuit reports whether quitting sandmux takes a snapshot of the sandbox.
func (p SnapshotPolicy) OnQuit() bool { return p == SnapshotOnQuit || p == SnapshotAlways }

// RestorePolicy says whether a sandbox's latest snapshot is restored when it
// starts. In the config it is a bool or the string "replace".
type RestorePolicy uint8

// Restore policies.
const (
	RestoreOff     RestorePolicy = iota // restore = false
	RestoreIfEmpty                      // restore = true: only into an empty or missing workspace
	RestoreReplace                      // restore = "replace": replace the workspace's contents
)

// String returns the policy as the config spells it.
func (p RestorePolicy) String() string {
	switch p {
	case RestoreOff:
		return "false"
	case RestoreIfEmpty:
		return "true"
	case RestoreReplace:
		return `"replace"`
	}
	return fmt.Sprintf("RestorePolicy(%d)", uint8(p))
}

// Spec returns what the sandbox's provider needs to open it.
func (s Sandbox) Spec() providers.Spec {
	env := make([]string, 0, len(s.Env))
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		env = append(env, k+"="+s.Env[k])
	}
	return providers.Spec{
		Name:    s.Name,
		Command: slices.Clone(s.Command),
		Env:     env,
		Dir:     s.Workspace,
		Size:    s.Size,
		Term:    s.Term,
		Options: maps.Clone(s.Options),
	}
}
