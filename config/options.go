package config

// The tables of options: every key of [[sandbox]], [ui] and the
// providers' own tables, with its default, its help and its kind, and how
// a table's values are applied to the struct it fills.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sandmux/sandmux/human"
	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

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
