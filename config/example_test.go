package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// config.example.toml documents every option in its table, with the help
// and type from the options table; it is valid; and the defaults it shows
// are the real ones.
func TestConfigExample(t *testing.T) {
	hermetic(t)
	data, err := os.ReadFile(filepath.Join(repoDir, "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig("config.example.toml", data)
	if err != nil {
		t.Fatalf("the example does not validate:\n%v", err)
	}

	// The comment above each key, by table and key: the first place the key
	// is written, active or commented out.
	type place struct{ table, key string }
	comments := map[place]string{}
	table, comment := "", ""
	keyLine := regexp.MustCompile(`^#?\s*([a-z_]+)\s*=`)
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		switch m := keyLine.FindStringSubmatch(line); {
		case strings.HasPrefix(line, "["):
			table, comment = strings.Trim(line, "[]"), ""
		case m != nil:
			if _, ok := comments[place{table, m[1]}]; !ok {
				comments[place{table, m[1]}] = comment
			}
			comment = ""
		case strings.HasPrefix(line, "#"):
			comment += " " + strings.TrimPrefix(line, "#")
		default:
			comment = ""
		}
	}
	// Each key's comment carries its help and type from the options table.
	check := func(table, key, help, typ string) {
		t.Helper()
		text, ok := comments[place{table, key}]
		text = strings.Join(strings.Fields(text), " ")
		switch {
		case !ok:
			t.Errorf("config.example.toml lacks %s in [%s]", key, table)
		case !strings.Contains(text, help) || !strings.Contains(text, "("+typ):
			t.Errorf("config.example.toml: the comment on %s in [%s] should say\n\t%s (%s\nbut says\n\t%s", key, table, help, typ, text)
		}
	}
	for _, o := range sandboxOptions {
		if o.inherit {
			check("defaults", o.key, o.help, o.typ)
		} else {
			check("sandbox", o.key, o.help, o.typ)
		}
	}
	for _, o := range uiOptions {
		check("ui", o.key, o.help, o.typ)
	}
	for _, o := range serverOptions {
		check("server", o.key, o.help, o.typ)
	}
	for _, o := range recordOptions {
		check("record", o.key, o.help, o.typ)
	}
	for _, o := range providerOptions {
		check("providers."+o.table, o.key, o.help, o.typ)
	}

	// The values shown in [defaults] and [ui] are the defaults.
	base := defaultsOf(sandboxOptions)
	for _, o := range sandboxOptions {
		if o.def != nil && !reflect.DeepEqual(o.get(c.defaults), o.get(&base)) {
			t.Errorf("[defaults] %s = %v in the example, but the default is %v", o.key, o.get(c.defaults), o.get(&base))
		}
	}
	if want := defaultsOf(uiOptions); !reflect.DeepEqual(c.UI, want) {
		t.Errorf("[ui] in the example is %+v, but the defaults are %+v", c.UI, want)
	}
	if want := defaultsOf(serverOptions); c.Server != want {
		t.Errorf("[server] in the example is %+v, but the defaults are %+v", c.Server, want)
	}
	if want := defaultsOf(recordOptions); c.Record != want {
		t.Errorf("[record] in the example is %+v, but the defaults are %+v", c.Record, want)
	}
}

func TestConfigOptionsTable(t *testing.T) {
	type row struct{ table, key, typ, help, note string }
	var rows []row
	for _, o := range sandboxOptions {
		rows = append(rows, row{o.table, o.key, o.typ, o.help, o.note})
		if o.def == nil && o.note == "" {
			t.Errorf("%s: neither a default nor a note saying what it is", o.key)
		}
	}
	for _, o := range uiOptions {
		rows = append(rows, row{o.table, o.key, o.typ, o.help, o.note})
	}
	for _, o := range serverOptions {
		rows = append(rows, row{o.table, o.key, o.typ, o.help, o.note})
	}
	for _, o := range recordOptions {
		rows = append(rows, row{o.table, o.key, o.typ, o.help, o.note})
	}
	for _, o := range providerOptions {
		rows = append(rows, row{"providers." + o.table, o.key, o.typ, o.help, o.note})
		if !slices.Contains(providerNames, o.table) {
			t.Errorf("%s: provider %q is not in providerNames", o.key, o.table)
		}
	}
	seen := map[[2]string]bool{}
	for _, r := range rows {
		if seen[[2]string{r.table, r.key}] {
			t.Errorf("%s.%s: listed twice", r.table, r.key)
		}
		seen[[2]string{r.table, r.key}] = true
		if r.typ == "" || !strings.HasSuffix(r.help, ".") || strings.Count(r.help, ". ") > 0 {
			t.Errorf("%s.%s: want a type and one sentence of help, got %q, %q", r.table, r.key, r.typ, r.help)
		}
	}
	// Building the defaults panics on a default its own kind rejects.
	defaultsOf(sandboxOptions)
	defaultsOf(uiOptions)
	defaultsOf(providerOptions)
}

// validate accepts its own output and changes nothing the second time.
func TestConfigValidateIdempotent(t *testing.T) {
	hermetic(t)
	data, err := os.ReadFile(filepath.Join(repoDir, "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig("config.example.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	before := *c
	before.Sandboxes = slices.Clone(c.Sandboxes)
	if err := c.validate(); err != nil {
		t.Fatalf("second validate: %v", err)
	}
	if !reflect.DeepEqual(&before, c) {
		t.Errorf("second validate changed the config:\n%+v\n%+v", before, *c)
	}
}
