package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// FuzzConfig: parseConfig never panics; an accepted config validates again
// unchanged; every error names the file and stays short however long the
// input; and the key scanner finds every key toml reports outside arrays,
// so errors about them have a line.
func FuzzConfig(f *testing.F) {
	for _, name := range []string{filepath.Join(repoDir, "config.example.toml"), "default_config.toml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[[sandbox]]\nname = \"a\"\ncommand = [\"x\", 1]\n[sandbox.env]\nA = 1\n"))
	f.Add([]byte("sandbox = [{ name = \"a\", env = { B = \"\" } }, 2]\nui = { fps = 0 }\n"))
	f.Add([]byte("[defaults]\nrestore = \"replace\"\n[[sandbox]]\nname = 'b'\ns = \"\"\"\n]]\"\"\"\n"))
	f.Add([]byte("[providers.local]\nshell = \"/bin/sh\"\n[[sandbox]]\nname = \"c\"\nworkspace = \"~/w\"\n"))
	f.Add([]byte("[[sandbox]]\nname = \"d\"\n[[rule]]\nmatch = '(\\w+)?'\nstate = \"waiting\"\nreason = \"$1\"\nhold = \"1s\"\nsandboxes = [\"d*\"]\n[ui]\nnotify = [\"bell\"]\n"))
	f.Add([]byte("[[sandbox]]\nname = \"k\"\n[keys.prefix]\n\"|\" = \"zoom\"\nX = \"none\"\n\"Ctrl+Shift+x\" = \"zom\"\n[keys.root]\n\"alt+1\" = \"focus-1\"\nf5 = 3\n[keys]\nq = \"quit\"\n"))
	f.Add([]byte("keys = { prefix = { c = \"new-pane\", \"'\" = \"go-to\" }, root = { \"alt+n\" = \"next-page\", a = \"help\" } }\n[[sandbox]]\nname = \"k\"\n"))
	// Nesting around the depth limit, and brackets that do not nest.
	const sb = "[[sandbox]]\nname = \"d\"\n"
	f.Add([]byte(sb + "command = " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n"))
	f.Add([]byte(sb + "env = " + strings.Repeat("{a=", 70) + "1" + strings.Repeat("}", 70) + "\n"))
	f.Add([]byte(sb + "env = { " + strings.Repeat("a.", 40) + "b = [[{c.d = [1]}]] }\n"))
	f.Add([]byte(sb + "[" + strings.Repeat("sandbox.", 66) + "x]\n"))
	f.Add([]byte(sb + "command = ['[[[[', \"{{\\\"[[\", \"\"\"\n[[[\n\"\"\"\"\", '''\n{{{\n'''''] # [[[[\n[\"[[[[\"]\n"))

	dir := f.TempDir()
	f.Setenv("HOME", dir)
	f.Setenv("XDG_DATA_HOME", "")
	const name = "fuzz.toml"
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(name, data)
		if err != nil {
			var joined interface{ Unwrap() []error }
			errs := []error{err}
			if errors.As(err, &joined) {
				errs = joined.Unwrap()
			}
			for _, e := range errs {
				if n := utf8.RuneCountInString(e.Error()); n > maxMessage+3*maxQuoted+len(name) {
					t.Fatalf("an error of %d runes: %.300q", n, e)
				}
				var ce *configError
				if !errors.As(e, &ce) || ce.File != name || !strings.HasPrefix(e.Error(), name) {
					t.Fatalf("error %q (%T) does not start with the file name", e, e)
				}
			}
		} else {
			before := *c
			before.Sandboxes = slices.Clone(c.Sandboxes)
			if err := c.validate(); err != nil {
				t.Fatalf("accepted config fails validate:\n%v\n%s", err, data)
			}
			if !reflect.DeepEqual(&before, c) {
				t.Fatalf("validate changed an accepted config:\n%+v\n%+v", before, *c)
			}
			for _, s := range c.Sandboxes {
				if !filepath.IsAbs(s.Workspace) || filepath.Clean(s.Workspace) != s.Workspace {
					t.Fatalf("workspace %q is not absolute and clean", s.Workspace)
				}
			}
		}

		var doc map[string]any
		md, err := toml.Decode(string(data), &doc)
		if err != nil {
			return
		}
		lines := scanKeyLines(data)
	keys:
		for _, k := range md.Keys() {
			for i := range k {
				if typ := md.Type(k[:i+1]...); typ == "Array" || typ == "ArrayHash" {
					continue keys // the scanner names these with an index
				}
			}
			if !lines.has(k.String()) {
				t.Fatalf("scanner missed key %s in:\n%s", k, data)
			}
		}
	})
}
