package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// config.example.toml documents every key of every remote provider in its
// [providers.NAME] table, and its commented remote sandboxes are valid once
// uncommented.
func TestConfigExampleRemoteProviders(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoDir, "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, r := range remoteProviders {
		start := strings.Index(text, "\n[providers."+r.name+"]\n")
		if start < 0 {
			t.Errorf("config.example.toml has no [providers.%s] table", r.name)
			continue
		}
		section := text[start+1:]
		if end := regexp.MustCompile(`\n\[`).FindStringIndex(section[1:]); end != nil {
			section = section[:end[0]+1]
		}
		for _, k := range r.keys {
			if !regexp.MustCompile(`(?m)^# ` + regexp.QuoteMeta(k.Name) + ` = `).MatchString(section) {
				t.Errorf("[providers.%s] in config.example.toml does not show %s", r.name, k.Name)
			}
		}
	}
	// Uncomment the example remote sandboxes and check they validate.
	i := strings.Index(text, "# [[sandbox]]")
	if i < 0 {
		t.Fatal("config.example.toml has no commented remote sandbox examples")
	}
	var doc strings.Builder
	for _, line := range strings.Split(text[i:], "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		doc.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ") + "\n")
	}
	cfg, err := parseConfig("config.example.toml (remote examples)", []byte(doc.String()))
	if err != nil {
		t.Fatalf("the remote sandbox examples do not validate: %v\n%s", err, doc.String())
	}
	got := map[string]string{}
	for _, sb := range cfg.Sandboxes {
		got[sb.Provider] = sb.Name
	}
	for _, r := range remoteProviders {
		if got[r.name] == "" {
			t.Errorf("no example sandbox uses the %s provider", r.name)
		}
	}
}

// A sandbox's provider table is merged over [providers.NAME].
func TestConfigRemoteOptionsMerge(t *testing.T) {
	doc := `
[providers.ssh]
port = 2222
keepalive = "5s"

[[sandbox]]
name = "a"
provider = "ssh"
ssh = { host = "dev@a.example", keepalive = "1s" }
`
	cfg, err := parseConfig("sandmux.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	opts := cfg.Sandboxes[0].Spec().Options
	if opts["host"] != "dev@a.example" || opts["port"] != int64(2222) || opts["keepalive"] != "1s" {
		t.Errorf("options = %v, want the sandbox's over the provider's", opts)
	}
}
