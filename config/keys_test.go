package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/keys"
)

// [keys] binds keys to the actions help lists, after the prefix or
// without it; keys are normalised as Bubble Tea reports them.
func TestConfigKeys(t *testing.T) {
	hermetic(t)
	doc := `[[sandbox]]
name = "a"

[keys.prefix]
"|" = "zoom"
C = "new-command"
"Shift+T" = "go-to"
x = "none"

[keys.root]
"Alt+N" = "next-page"
f5 = "new-pane"
`
	c, err := parseConfig("sandmux.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []keys.Binding{
		{Key: "C", Action: "new-command"}, {Key: "T", Action: "go-to"}, {Key: "x", Action: "none"}, {Key: "|", Action: "zoom"},
		{Root: true, Key: "alt+n", Action: "next-page"}, {Root: true, Key: "f5", Action: "new-pane"},
	}
	if !slices.Equal(c.Keys, want) {
		t.Errorf("keys %+v, want %+v", c.Keys, want)
	}
	if err := c.validate(); err != nil || !slices.Equal(c.Keys, want) {
		t.Errorf("validate does not accept its own output: %v, %+v", err, c.Keys)
	}
}

// A binding's mistakes are reported at its file, line and key, with a
// did-you-mean for a misspelt action or table.
func TestConfigKeysErrors(t *testing.T) {
	hermetic(t)
	const sb = "[[sandbox]]\nname = \"a\"\n" // lines 1-2
	for _, tt := range []struct {
		name, doc, want string
	}{
		{"action misspelt", sb + "[keys.prefix]\nz = \"zom\"\n", `sandmux.toml:4: keys.prefix.z: "zom" is not an action (did you mean "zoom"?)`},
		{"action unknown", sb + "[keys.prefix]\nz = \"teleport-everything\"\n", `sandmux.toml:4: keys.prefix.z: "teleport-everything" is not an action (use one of help, new-pane`},
		{"action type", sb + "[keys.root]\nf5 = 5\n", `sandmux.toml:4: keys.root.f5: 5 is not an action's name`},
		{"key", sb + "[keys.prefix]\n\"cmd+z\" = \"zoom\"\n", `sandmux.toml:4: keys.prefix."cmd+z": "cmd+z" is not a key`},
		{"table misspelt", sb + "[keys.roots]\nf5 = \"zoom\"\n", `sandmux.toml:3: keys.roots: unknown key (did you mean "root"?)`},
		{"binding outside a table", sb + "[keys]\nz = \"zoom\"\n", `sandmux.toml:4: keys.z: is a binding outside a table: write it under [keys.prefix]`},
		{"key twice", sb + "[keys.prefix]\n\"ctrl+z\" = \"zoom\"\n\"Ctrl+Z\" = \"list\"\n", `sandmux.toml:4: keys.prefix."ctrl+z": is "Ctrl+Z" again`},
		{"root character", sb + "[keys.root]\na = \"zoom\"\n", `sandmux.toml:4: keys.root.a: "a" alone would take that character from every pane`},
		{"root prefix", sb + "[keys.root]\n\"ctrl+b\" = \"zoom\"\n", `sandmux.toml:4: keys.root."ctrl+b": is the prefix (ui.prefix)`},
		{"not a table", "keys = 1\n" + sb, `sandmux.toml:1: keys: 1 is not a table`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig("sandmux.toml", []byte(tt.doc))
			var ce *configError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *configError", err, err)
			}
			if got := err.Error(); !strings.HasPrefix(got, tt.want) || strings.Contains(got, "\n") {
				t.Errorf("got error\n\t%s\nwant one line starting\n\t%s", got, tt.want)
			}
		})
	}
}
