package config

import (
	_ "embed" // for the built-in default config
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/sandmux/sandmux/human"
	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/xdg"
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

// option is one key of a config table.
type option[T any] struct {
	table string // "sandbox", "ui", or a provider name for [providers.NAME]
	key   string
	// def is the default as TOML decodes it (string, int64, bool); nil when
	// there is none or it is computed, and then note says what it is.
	def  any
	note string
	// inherit marks the [[sandbox]] keys that [defaults] may set.
	inherit bool
	help    string
	// checkReg, when set, checks the value against the providers Load
	// was given.
	checkReg func(reg providers.Registry, t *T) error
	kind[T]
}

// kind is how an option's value is read from TOML and checked.
type kind[T any] struct {
	typ string // the type as the docs name it
	// set stores a TOML value in t; its error says what to write instead.
	set func(t *T, v any) error
	// check checks, and may normalise, the resolved value. It runs on every
	// validate, so it must accept what it produced.
	check func(t *T) error
	// get returns the value, for a provider's Spec.Options.
	get func(t *T) any
}

var sandboxOptions = []option[Sandbox]{
	{table: "sandbox", key: "name", note: "required",
		help: `Names the sandbox: unique, and safe as a directory name (letters, digits, ".", "_", "-").`,
		kind: stringKind(func(s *Sandbox) *string { return &s.Name }, checkName)},
	{table: "sandbox", key: "provider", def: "local", inherit: true,
		help:     `Which provider opens the sandbox's terminal: "local", "ssh", "docker", "exec" or "replay".`,
		checkReg: func(reg providers.Registry, s *Sandbox) error { return checkProvider(reg, s.Provider) },
		kind:     stringKind(func(s *Sandbox) *string { return &s.Provider }, nil)},
	{table: "sandbox", key: "command", note: "the provider's shell", inherit: true,
		help: `What to run: a string is run with sh -c, an array is the argv itself; "" runs the provider's shell.`,
		kind: commandKind(func(s *Sandbox) *[]string { return &s.Command })},
	{table: "sandbox", key: "workspace", note: `"$XDG_DATA_HOME/sandmux/workspaces/<name>"`,
		help: "The sandbox's working directory; ~/ is expanded and a relative path is relative to the config file.",
		kind: stringKind(func(s *Sandbox) *string { return &s.Workspace }, nil)},
	{table: "sandbox", key: "env", note: "{}", inherit: true,
		help: "Extra environment variables; a sandbox's env adds to, and overrides, the one in [defaults].",
		kind: envKind(func(s *Sandbox) *map[string]string { return &s.Env })},
	{table: "sandbox", key: "size", def: "80x24", inherit: true,
		help: `The terminal size, as "COLSxROWS", until the sandbox's pane is laid out.`,
		kind: sizeKind(func(s *Sandbox) *providers.Size { return &s.Size })},
	{table: "sandbox", key: "term", def: providers.DefaultTerm, inherit: true,
		help: "The TERM the command sees.",
		kind: stringKind(func(s *Sandbox) *string { return &s.Term }, checkTerm)},
	{table: "sandbox", key: "stop_grace", def: human.Duration(session.DefaultStopGrace), inherit: true,
		help: "When the sandbox is closed, how long to wait after SIGHUP before sending SIGTERM.",
		kind: durationKind(func(s *Sandbox) *time.Duration { return &s.StopGrace }, 10*time.Millisecond, 10*time.Minute)},
	{table: "sandbox", key: "kill_grace", def: human.Duration(session.DefaultKillGrace), inherit: true,
		help: "How long to wait after SIGTERM before sending SIGKILL.",
		kind: durationKind(func(s *Sandbox) *time.Duration { return &s.KillGrace }, 10*time.Millisecond, 10*time.Minute)},
	{table: "sandbox", key: "drain_grace", def: human.Duration(session.DefaultDrainGrace), inherit: true,
		help: "After the command exits, how long a background child may hold the terminal open while output drains; then the group is killed.",
		kind: durationKind(func(s *Sandbox) *time.Duration { return &s.DrainGrace }, 10*time.Millisecond, 10*time.Minute)},
	{table: "sandbox", key: "snapshot", def: "never", inherit: true,
		help: `When to archive the workspace: "never", "on-close" (when its pane is closed), "on-quit" (when sandmux quits) or "always" (both).`,
		kind: snapshotKind(func(s *Sandbox) *SnapshotPolicy { return &s.Snapshot })},
	{table: "sandbox", key: "restore", def: false, inherit: true,
		help: `Whether starting restores the latest snapshot: false, true (only into an empty workspace) or "replace" (replacing the workspace's contents).`,
		kind: restoreKind(func(s *Sandbox) *RestorePolicy { return &s.Restore })},
	{table: "sandbox", key: "snapshot_exclude", note: "[]", inherit: true,
		help: `Gitignore-style patterns of workspace paths that snapshots leave out, such as "node_modules/" or "*.log".`,
		kind: patternsKind(func(s *Sandbox) *[]string { return &s.SnapshotExclude })},
	{table: "sandbox", key: "snapshot_keep", def: int64(5), inherit: true,
		help: "How many snapshots of the sandbox to keep; older ones are deleted.",
		kind: intKind(func(s *Sandbox) *int { return &s.SnapshotKeep }, 1, 1000)},
}

var uiOptions = []option[UIConfig]{
	{table: "ui", key: "prefix", def: keys.DefaultPrefix,
		help: "The key that starts a sandmux command; the key after it says which.",
		kind: stringKind(func(u *UIConfig) *string { return &u.Prefix }, normalizeKey)},
	{table: "ui", key: "fps", def: int64(keys.DefaultFPS),
		help: "At most how many frames a second the UI draws while panes change.",
		kind: intKind(func(u *UIConfig) *int { return &u.FPS }, 1, 240)},
	{table: "ui", key: "scrollback", def: int64(vt.DefaultScrollback),
		help: "How many lines of history each pane keeps.",
		kind: intKind(func(u *UIConfig) *int { return &u.Scrollback }, 0, 1_000_000)},
	{table: "ui", key: "activity_window", def: "2s",
		help: "Output or CPU use within this long makes a pane working.",
		kind: durationKind(func(u *UIConfig) *time.Duration { return &u.ActivityWindow }, 100*time.Millisecond, time.Hour)},
	{table: "ui", key: "attention_after", def: "10s",
		help: "How long a pane must be quiet, after output or CPU use, before it is idle.",
		kind: durationKind(func(u *UIConfig) *time.Duration { return &u.AttentionAfter }, time.Second, 24*time.Hour)},
	{table: "ui", key: "notify", def: []any{"terminal"},
		help: `How a pane that starts waiting, is done or failed is told while you look elsewhere: "terminal" (a notification to your terminal), "bell", "command" (runs notify_command).`,
		kind: notifyKind(func(u *UIConfig) *[]string { return &u.Notify })},
	{table: "ui", key: "notify_command", def: "",
		help: "Run for each such pane, with SANDMUX_PANE, SANDMUX_NAME, SANDMUX_STATE and SANDMUX_REASON in its environment (a string for sh -c, or an array).",
		kind: commandKind(func(u *UIConfig) *[]string { return &u.NotifyCommand })},
	{table: "ui", key: "notify_timeout", def: "10s",
		help: "How long notify_command may run before it is killed.",
		kind: durationKind(func(u *UIConfig) *time.Duration { return &u.NotifyTimeout }, 100*time.Millisecond, 10*time.Minute)},
	{table: "ui", key: "clipboard", def: "write",
		help: `"write" passes a pane's clipboard writes (OSC 52) on to your terminal, as tmux's set-clipboard does, but not to read-only clients, who only watch; "all" passes them to read-only clients too; "off" drops them (a pane never reads your clipboard).`,
		kind: stringKind(func(u *UIConfig) *string { return &u.Clipboard }, clipboardMode)},
	{table: "ui", key: "bell", def: "any",
		help: `Whose bells reach your terminal: "any" pane's, "other" panes' than the focused one, or "none".`,
		kind: stringKind(func(u *UIConfig) *string { return &u.Bell }, passMode)},
	{table: "ui", key: "notifications", def: "none",
		help: `Whose own notifications (OSC 9 and OSC 777) reach your terminal as they are sent, named after their pane: "any" pane's, "other" panes' than the focused one, or "none" (notify already tells you when a pane starts waiting).`,
		kind: stringKind(func(u *UIConfig) *string { return &u.Notifications }, passMode)},
}

// passMode accepts the ui.bell and ui.notifications values.
func passMode(v string) (string, error) {
	if v != "any" && v != "other" && v != "none" {
		return "", errors.New(`is not a pane choice (write "any", "other" or "none")`)
	}
	return v, nil
}

// clipboardMode accepts the ui.clipboard values.
func clipboardMode(v string) (string, error) {
	if v != "write" && v != "all" && v != "off" {
		return "", errors.New(`is not a clipboard mode (write "write", "all" or "off")`)
	}
	return v, nil
}

var providerOptions = []option[ProvidersConfig]{
	{table: "local", key: "shell", note: `"" ($SHELL, else "/bin/sh")`,
		help: "The shell the local provider runs for a sandbox without a command; an absolute path.",
		kind: stringKind(func(p *ProvidersConfig) *string { return &p.Local.Shell }, checkShell)},
}

// Load reads the config at path, or, when path is "", the first of
// SearchPath that exists, else the built-in default. A sandbox may name
// the providers of reg; their own option tables are checked by them.
func Load(path string, reg providers.Registry) (*Config, error) {
	if path != "" {
		data, err := readConfigFile(path)
		if err != nil {
			return nil, fmt.Errorf("read config: %w (check the file given to -c)", err)
		}
		return parse(path, data, reg)
	}
	for _, p := range SearchPath() {
		data, err := readConfigFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read config: %w (make it readable, or pass another file with -c)", err)
		}
		return parse(p, data, reg)
	}
	c, err := parse(BuiltinSource, defaultConfig, reg)
	if err != nil {
		return nil, err
	}
	// The built-in shells start where sandmux was started, as tmux's
	// do: no config asked for a workspace of their own.
	if dir, err := os.Getwd(); err == nil {
		for i := range c.Sandboxes {
			c.Sandboxes[i].Workspace = dir
		}
	}
	return c, nil
}

// readConfigFile reads at most one byte more than a config may hold, so
// that checkConfigShape refuses a huge file (or -c /dev/zero) without it
// being read whole.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxConfigSize+1))
}

// SearchPath returns the files Load tries, in order, before falling back
// to the built-in default.
func SearchPath() []string {
	paths := []string{"sandmux.toml"}
	if dir, err := xdg.Config(); err == nil {
		paths = append(paths, filepath.Join(dir, "config.toml"))
	}
	return paths
}

// parse decodes and validates the config in data; name is the file it came
// from, for errors and Config.Source.
func parse(name string, data []byte, reg providers.Registry) (*Config, error) {
	if err := checkConfigShape(name, data); err != nil {
		return nil, err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, syntaxError(name, err)
	}
	p := &problems{file: name, lines: scanKeyLines(data), reg: reg}
	c := p.decode(doc)
	c.Source, c.lines = name, p.lines
	// The values decoded are validated too, so one run reports every
	// mistake; a key that did not decode is left out, as what it holds
	// now is the default, and its checks would only echo its error.
	p.skipDecoded()
	c.validateInto(p)
	if err := p.err(); err != nil {
		return nil, err
	}
	return c, nil
}

func syntaxError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// The decoder quotes the input it stumbled on, however long.
		msg := shorten(strings.TrimSuffix(pe.Message, "."), 2*maxQuoted)
		return &configError{File: name, Line: pe.Position.Line, Err: fmt.Errorf("%s (fix the TOML syntax here)", msg)}
	}
	return &configError{File: name, Err: fmt.Errorf("parse: %s", shorten(err.Error(), 2*maxQuoted))}
}

// decode overlays the document on the defaults; it reports unknown keys and
// values of the wrong type.
func (p *problems) decode(doc map[string]any) *Config {
	c := &Config{UI: defaultsOf(uiOptions), Server: defaultsOf(serverOptions), Record: defaultsOf(recordOptions), Providers: defaultsOf(providerOptions), reg: p.reg}
	for key := range doc {
		if !slices.Contains([]string{"defaults", "sandbox", "ui", "server", "record", "providers", "rule", "keys"}, key) {
			p.add(joinKey("", key), errors.New("unknown key (the tables are [defaults], [[sandbox]], [ui], [keys.prefix], [keys.root], [server], [record], [providers.NAME] and [[rule]])"))
		}
	}
	base := defaultsOf(sandboxOptions)
	if t := p.table(doc, "", "defaults"); t != nil {
		applyOptions(p, sandboxOptions, "sandbox", "defaults", t, &base)
	}
	c.defaults = &base
	c.Rules = p.decodeRules(doc)
	c.Keys, c.keysAt = p.decodeKeys(doc)
	if t := p.table(doc, "", "ui"); t != nil {
		applyOptions(p, uiOptions, "ui", "ui", t, &c.UI)
	}
	if t := p.table(doc, "", "server"); t != nil {
		applyOptions(p, serverOptions, "server", "server", t, &c.Server)
	}
	if t := p.table(doc, "", "record"); t != nil {
		applyOptions(p, recordOptions, "record", "record", t, &c.Record)
	}
	if t := p.table(doc, "", "providers"); t != nil {
		p.decodeProviders(c, t)
	}
	p.decodeSandboxes(c, doc, base)
	return c
}

// decodeProviders takes the [providers.NAME] tables: a built-in
// provider's options, or a remote one's table as it was written.
func (p *problems) decodeProviders(c *Config, t map[string]any) {
	for name := range t {
		at := joinKey("providers", name)
		_, remote := remoteProviderNamed(p.reg, name)
		switch pt := p.table(t, "providers", name); {
		case !slices.Contains(p.reg.Names(), name):
			p.add(at, fmt.Errorf("unknown provider (use one of %s)", quoteAll(p.reg.Names())))
		case pt == nil:
		case remote:
			if c.Providers.Remote == nil {
				c.Providers.Remote = map[string]map[string]any{}
			}
			c.Providers.Remote[name] = pt
		default:
			applyOptions(p, providerOptions, name, at, pt, &c.Providers)
		}
	}
}

// decodeSandboxes takes the [[sandbox]] tables, each over base (the
// defaults and [defaults]).
func (p *problems) decodeSandboxes(c *Config, doc map[string]any, base Sandbox) {
	for i, t := range p.arrayTables(doc, "sandbox") {
		s := base
		s.Env = maps.Clone(base.Env)
		at := fmt.Sprintf("sandbox[%d]", i)
		t, own := p.takeProviderTables(t, at)
		applyOptions(p, sandboxOptions, "sandbox", at, t, &s)
		if _, ok := t["workspace"]; !ok {
			dir, err := xdg.Data()
			if err != nil {
				p.add(at, errors.New("no home directory for the default workspace (set HOME or XDG_DATA_HOME, or write workspace)"))
			}
			s.Workspace = filepath.Join(dir, "workspaces", s.Name)
			s.WorkspaceChosen = true
		}
		s.Options = c.Providers.options(s.Provider)
		p.remoteOptions(c, &s, at, own)
		c.Sandboxes = append(c.Sandboxes, s)
	}
}

// options returns the table of the named provider, by key.
func (pc ProvidersConfig) options(provider string) map[string]any {
	var m map[string]any
	for _, o := range providerOptions {
		if o.table == provider {
			if m == nil {
				m = map[string]any{}
			}
			m[o.key] = o.get(&pc)
		}
	}
	return m
}

// table returns parent[key] when it is a table, and reports it otherwise.
func (p *problems) table(parent map[string]any, at, key string) map[string]any {
	v, ok := parent[key]
	if !ok {
		return nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		at = joinKey(at, key)
		p.add(at, fmt.Errorf("%s is not a table (write [%s] and put its keys below)", literal(v), at))
	}
	return t
}

// arrayTables returns the [[key]] tables (sandbox, rule), reporting
// anything else.
func (p *problems) arrayTables(doc map[string]any, key string) []map[string]any {
	switch v := doc[key].(type) {
	case nil:
		return nil
	case []map[string]any:
		return v
	case []any: // key = [{...}, ...]
		tables := make([]map[string]any, len(v))
		for i, e := range v {
			t, ok := e.(map[string]any)
			if !ok {
				p.add(fmt.Sprintf("%s[%d]", key, i), fmt.Errorf("%s is not a table (write a [[%s]] table for each %s)", literal(e), key, key))
			}
			tables[i] = t
		}
		return tables
	case map[string]any:
		p.add(key, fmt.Errorf("is a single table: write [[%s]], with double brackets, once per %s", key, key))
	default:
		p.add(key, fmt.Errorf("%s is not an array of tables (write a [[%s]] table for each %s)", literal(v), key, key))
	}
	return nil
}

// defaultsOf returns a T holding the default of every option that has one.
func defaultsOf[T any](opts []option[T]) T {
	var t T
	for _, o := range opts {
		if o.def != nil {
			if err := o.set(&t, o.def); err != nil {
				panic(fmt.Sprintf("config option %s.%s: bad default: %v", o.table, o.key, err))
			}
		}
	}
	return t
}

// applyOptions sets dst's fields from the keys of one table; at is the
// table as errors show it.
func applyOptions[T any](p *problems, opts []option[T], table, at string, values map[string]any, dst *T) {
	var known []string
	for _, o := range opts {
		if o.table == table && (at != "defaults" || o.inherit) {
			known = append(known, o.key)
		}
	}
	for key, v := range values {
		shown := joinKey(at, key)
		i := slices.IndexFunc(opts, func(o option[T]) bool { return o.table == table && o.key == key })
		switch {
		case i < 0:
			p.add(shown, unknownKey(key, known, at))
		case at == "defaults" && !opts[i].inherit:
			p.add(shown, errors.New("is not inherited: set it in each [[sandbox]] instead of [defaults]"))
		default:
			if err := opts[i].set(dst, v); err != nil {
				p.add(shown, err)
			}
		}
	}
}

func unknownKey(key string, known []string, at string) error {
	if len(known) == 0 {
		return fmt.Errorf("unknown key ([%s] has no keys yet)", at)
	}
	best, dist := "", 3
	lower := strings.ToLower(key)
	for _, k := range known {
		// The distance is at least the difference in length: a long key
		// costs nothing to rule out.
		if abs(len(lower)-len(k)) >= dist {
			continue
		}
		if d := editDistance(lower, k); d < dist {
			best, dist = k, d
		}
	}
	if best != "" {
		return fmt.Errorf("unknown key (did you mean %q?)", best)
	}
	return fmt.Errorf("unknown key (use one of %s)", strings.Join(known, ", "))
}

func abs(n int) int { return max(n, -n) }

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range len(a) {
		cur := make([]int, len(b)+1)
		cur[0] = i + 1
		for j := range len(b) {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j]+cost, prev[j+1]+1, cur[j]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// validate checks the resolved config and normalises it (workspaces become
// absolute, keys canonical). It accepts its own output unchanged.
func (c *Config) validate() error {
	p := &problems{file: c.Source, lines: c.lines, reg: c.reg}
	c.validateInto(p)
	return p.err()
}

// validateInto adds what is wrong with the decoded values to p.
func (c *Config) validateInto(p *problems) {
	if c.defaults != nil {
		for _, o := range sandboxOptions {
			if key := "defaults." + o.key; c.lines.has(key) {
				checkOption(p, key, o, c.defaults)
			}
		}
	}
	if len(c.Sandboxes) == 0 {
		p.add("sandbox", errors.New(`no sandboxes: add a [[sandbox]] table with a name, e.g. name = "shell"`))
	}
	first := map[string]int{}
	for i := range c.Sandboxes {
		s := &c.Sandboxes[i]
		at := fmt.Sprintf("sandbox[%d]", i)
		for _, o := range sandboxOptions {
			// Blame an inherited value on the line that set it.
			key := at + "." + o.key
			if !c.lines.has(key) && c.lines.has("defaults."+o.key) {
				key = "defaults." + o.key
			}
			checkOption(p, key, o, s)
		}
		if err := c.normalizeWorkspace(s); err != nil {
			p.add(at+".workspace", err)
		}
		c.checkRemoteSandbox(p, s, at)
		if j, dup := first[s.Name]; dup {
			p.add(at+".name", fmt.Errorf("%s already names sandbox[%d] (give each sandbox its own name)", literal(s.Name), j))
		} else if s.Name != "" {
			first[s.Name] = i
		}
	}
	for _, o := range uiOptions {
		checkOption(p, "ui."+o.key, o, &c.UI)
	}
	if slices.Contains(c.UI.Notify, "command") && len(c.UI.NotifyCommand) == 0 {
		p.add("ui.notify", errors.New(`has "command" but no notify_command says what to run (write one, e.g. notify_command = ["notify-send", "sandmux"])`))
	}
	for _, o := range providerOptions {
		checkOption(p, "providers."+o.table+"."+o.key, o, &c.Providers)
	}
	c.checkKeys(p)
	c.checkServer(p)
	c.checkRecord(p)
	c.checkRemoteTables(p)
}

func checkOption[T any](p *problems, key string, o option[T], t *T) {
	if o.check != nil {
		if err := o.check(t); err != nil {
			p.add(key, err)
		}
	}
	if o.checkReg != nil {
		if err := o.checkReg(p.reg, t); err != nil {
			p.add(key, err)
		}
	}
}

// normalizeWorkspace expands ~/ and makes the workspace absolute, relative
// to the config file's directory.
func (c *Config) normalizeWorkspace(s *Sandbox) error {
	w := s.Workspace
	switch {
	case w == "":
		return errors.New(`is empty (write a directory, or leave workspace out for one under $XDG_DATA_HOME/sandmux/workspaces)`)
	case w == "~" || strings.HasPrefix(w, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("expand ~: %w (set HOME, or write an absolute path)", err)
		}
		w = filepath.Join(home, w[1:])
	case strings.HasPrefix(w, "~"):
		return fmt.Errorf("%s: only ~/ is expanded (write an absolute path, or one starting with ~/)", literal(w))
	}
	if !filepath.IsAbs(w) {
		abs, err := filepath.Abs(filepath.Join(filepath.Dir(c.Source), w))
		if err != nil {
			return fmt.Errorf("make %s absolute: %w (write an absolute path)", literal(w), err)
		}
		w = abs
	}
	s.Workspace = filepath.Clean(w)
	return nil
}
