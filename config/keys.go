package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sandmux/sandmux/keys"
)

// The [keys] tables: [keys.prefix] binds keys after the prefix, as tmux's
// bind does, and [keys.root] keys that act at once, as bind -n does. Each
// key names an action (the help overlay's commands, keys.ActionNames) or
// "none", which unbinds it.
//
//	[keys.prefix]
//	"|" = "zoom"
//	x = "none"
//	[keys.root]
//	"alt+n" = "next-page"

// keyTables are the tables [keys] holds, and whether each is the root.
var keyTables = map[string]bool{"prefix": false, "root": true}

// decodeKeys reads [keys] into bindings, in file order within each
// table (the prefix table's first): unknown tables, keys that are no
// key, actions that are none, and a key bound twice are reported.
func (p *problems) decodeKeys(doc map[string]any) (binds []keys.Binding, at []string) {
	t := p.table(doc, "", "keys")
	if t == nil {
		return nil, nil
	}
	for _, name := range slices.Sorted(maps.Keys(t)) {
		table := joinKey("keys", name)
		root, known := keyTables[name]
		if !known {
			if _, isString := t[name].(string); isString {
				p.add(table, errors.New(`is a binding outside a table: write it under [keys.prefix] (after the prefix) or [keys.root] (without it)`))
			} else {
				p.add(table, unknownKey(name, []string{"prefix", "root"}, "keys"))
			}
			continue
		}
		values := p.table(t, "keys", name)
		seen := map[string]string{} // normalised key → as written
		for _, key := range slices.Sorted(maps.Keys(values)) {
			shown := joinKey(table, key)
			b, err := binding(key, values[key], root)
			if err != nil {
				p.add(shown, err)
				continue
			}
			if first, dup := seen[b.Key]; dup {
				p.add(shown, fmt.Errorf("is %s again: bind each key once", literal(first)))
				continue
			}
			seen[b.Key] = key
			binds, at = append(binds, b), append(at, shown)
		}
	}
	return binds, at
}

// binding checks one key = "action" line.
func binding(key string, v any, root bool) (keys.Binding, error) {
	k, err := keys.NormalizeBinding(key)
	if err != nil {
		return keys.Binding{}, fmt.Errorf("%s %w", literal(key), err)
	}
	if root && utf8.RuneCountInString(k) == 1 {
		return keys.Binding{}, fmt.Errorf("%s alone would take that character from every pane: bind it with a modifier (e.g. \"alt+%s\") or under [keys.prefix]", literal(key), k)
	}
	name, ok := v.(string)
	if !ok {
		return keys.Binding{}, fmt.Errorf(`%s is not an action's name (write e.g. "new-pane", or "none" to unbind)`, literal(v))
	}
	if name != keys.ActionNone && !slices.Contains(keys.ActionNames(), name) {
		return keys.Binding{}, unknownAction(name)
	}
	return keys.Binding{Root: root, Key: k, Action: name}, nil
}

func unknownAction(name string) error {
	names := append(keys.ActionNames(), keys.ActionNone)
	best, dist := "", 4
	for _, n := range names {
		if d := editDistance(strings.ToLower(name), n); d < dist {
			best, dist = n, d
		}
	}
	if best != "" {
		return fmt.Errorf("%s is not an action (did you mean %q?)", literal(name), best)
	}
	return fmt.Errorf("%s is not an action (use one of %s)", literal(name), strings.Join(names, ", "))
}

// checkKeys checks the bindings against the prefix, once it is
// normalised: in the root table, the prefix would never start a command.
func (c *Config) checkKeys(p *problems) {
	for i, b := range c.Keys {
		if b.Root && b.Key == c.UI.Prefix {
			p.add(c.keysAt[i], errors.New("is the prefix (ui.prefix): bound at once, it could never start a command (bind it under [keys.prefix], or choose another prefix)"))
		}
	}
}
