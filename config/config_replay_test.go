package config

import (
	"strings"
	"testing"
)

// A replay sandbox loads with its options merged over [providers.replay],
// without its file existing yet; a bad option is reported at its file,
// line and key.
func TestConfigReplaySandbox(t *testing.T) {
	doc := `
[providers.replay]
speed = 2

[[sandbox]]
name = "review"
provider = "replay"
replay = { file = "/recordings/not-yet.cast", loop = true }
`
	cfg, err := parseConfig("sandmux.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	sb := cfg.Sandboxes[0]
	if opts := sb.Spec().Options; sb.Provider != "replay" || opts["file"] != "/recordings/not-yet.cast" || opts["speed"] != int64(2) || opts["loop"] != true {
		t.Errorf("sandbox %+v, options %v", sb, opts)
	}

	for _, c := range []struct{ doc, want string }{
		{"[[sandbox]]\nname = \"r\"\nprovider = \"replay\"\nreplay = { file = \"/a.cast\", speed = -1 }\n",
			"sandmux.toml:4: sandbox[0].replay: replay option speed: -1 is out of range"},
		{"[[sandbox]]\nname = \"r\"\nprovider = \"replay\"\n",
			"sandmux.toml:3: sandbox[0].provider: replay option file: missing"},
		{"[providers.replay]\nfile = \"a.cast\"\n\n[[sandbox]]\nname = \"r\"\nprovider = \"replay\"\n",
			`sandmux.toml:1: providers.replay: replay option file: "a.cast" is relative`},
		{"[[sandbox]]\nname = \"r\"\nprovider = \"replay\"\nsnapshot = \"on-close\"\nreplay = { file = \"/a.cast\" }\n",
			"sandmux.toml:4: sandbox[0].snapshot: the replay provider cannot read or write a workspace"},
	} {
		_, err := parseConfig("sandmux.toml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config\n%s\nerror %v\nwant it to say %q", c.doc, err, c.want)
		}
	}
}
