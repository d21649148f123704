// Package config owns sandmux's config file: where it is found (-c FILE,
// ./sandmux.toml, $XDG_CONFIG_HOME/sandmux/config.toml, else the embedded
// default), the options tables that describe every key once (type,
// default, bounds, help), decoding and validation, the line scanner that
// places each key, the bounds that keep a hostile file cheap to refuse,
// and the errors that say where a mistake is and what to write instead.
//
// It must not open providers, start sessions or touch the terminal: it
// returns a checked *Config and nothing else. It knows the providers only
// through the providers.Registry its caller passes to Load (their names,
// option keys and checks, and whether they can snapshot), and the session
// defaults only as the constants of package session.
package config

// The config: where it is found, what it may say, and how it is checked.
//
//	-c FILE | ./sandmux.toml | $XDG_CONFIG_HOME/sandmux/config.toml | built-in default
//	   └─► toml.Decode into a generic map (syntax errors, with their line)
//	         └─► decode: option defaults ◄─ [defaults] ◄─ each [[sandbox]]; [ui]; [providers.NAME]
//	               (unknown keys and wrong types, each at its file, line and key)
//	               └─► validate: bounds, names, workspaces (normalised) ─► *Config
//
// The options tables below are the one place a key is described: its type,
// default, bounds and one sentence of help. Decoding, validation, the check
// command and the test that keeps config.example.toml complete all walk them.
// kinds.go holds the value kinds, errors.go how mistakes are reported,
// lines.go where each key was written, limits.go the bounds on a file,
// providers.go the provider tables.
