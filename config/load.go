package config

// Finding, reading and decoding a config file into a Config.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/xdg"
)

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
