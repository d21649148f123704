package config

// Checking a decoded Config: unknown keys (with the nearest known one),
// every option's own check, and the checks that span tables.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

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
