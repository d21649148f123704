package ssh

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

func TestParseOptions(t *testing.T) {
	home, _ := os.UserHomeDir()
	me := currentUser()
	cases := []struct {
		in   map[string]any
		want Options
	}{
		{map[string]any{"host": "example.com"}, Options{Host: "example.com", User: me, Port: 22,
			KnownHosts: []string{filepath.Join(home, ".ssh/known_hosts")}, Keepalive: 15 * time.Second, ConnectTimeout: 10 * time.Second}},
		{map[string]any{"host": "bob@10.0.0.1:2222", "user": "alice", "port": int64(23), "keepalive": "0s",
			"connect_timeout": "3s", "identity_files": []any{"~/k", "/abs/k"}, "known_hosts": []any{"/kh"}, "insecure_ignore_host_key": true},
			Options{Host: "10.0.0.1", User: "bob", Port: 2222, IdentityFiles: []string{filepath.Join(home, "k"), "/abs/k"},
				KnownHosts: []string{"/kh"}, InsecureIgnoreHostKey: true, ConnectTimeout: 3 * time.Second}},
		{map[string]any{"host": "[::1]:22", "user": "", "port": int64(0), "identity_files": []any{}, "keepalive": "", "connect_timeout": ""},
			Options{Host: "::1", User: me, Port: 22, KnownHosts: []string{filepath.Join(home, ".ssh/known_hosts")},
				Keepalive: 15 * time.Second, ConnectTimeout: 10 * time.Second}},
		{map[string]any{"host": "::1", "port": int64(2222)}, Options{Host: "::1", User: me, Port: 2222,
			KnownHosts: []string{filepath.Join(home, ".ssh/known_hosts")}, Keepalive: 15 * time.Second, ConnectTimeout: 10 * time.Second}},
		{map[string]any{"host": "h", "port": 2200, "identity_files": []string{"/k"}, "keepalive": 2 * time.Second},
			Options{Host: "h", User: me, Port: 2200, IdentityFiles: []string{"/k"}, KnownHosts: []string{filepath.Join(home, ".ssh/known_hosts")},
				Keepalive: 2 * time.Second, ConnectTimeout: 10 * time.Second}},
	}
	for _, c := range cases {
		got, err := ParseOptions(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseOptions(%v) =\n %+v, %v\nwant\n %+v", c.in, got, err, c.want)
		}
	}
}

func TestParseOptionsErrors(t *testing.T) {
	for _, c := range []struct {
		in   map[string]any
		want []string // substrings of the error, each must appear
	}{
		{map[string]any{}, []string{"host: missing", `host = "example.com"`}},
		{map[string]any{"host": "h", "hots": "x"}, []string{"hots: unknown key", "host, user, port"}},
		{map[string]any{"host": "h", "port": int64(70000)}, []string{"port: 70000 is out of range (write 1 to 65535)"}},
		{map[string]any{"host": "h", "port": "22"}, []string{"port: 22 is not an integer"}},
		{map[string]any{"host": "h:x"}, []string{`port "x"`}},
		{map[string]any{"host": "@h"}, []string{"empty user"}},
		{map[string]any{"host": "fe80::1::22"}, []string{"bracket IPv6"}},
		{map[string]any{"host": "h", "keepalive": "5"}, []string{`keepalive: "5" is not a duration`}},
		{map[string]any{"host": "h", "keepalive": "1ms"}, []string{"keepalive: 1ms is out of range"}},
		{map[string]any{"host": "h", "connect_timeout": "0s"}, []string{"connect_timeout: 0s is out of range"}},
		{map[string]any{"host": "h", "identity_files": "~/.ssh/id"}, []string{"identity_files: ~/.ssh/id is not an array"}},
		{map[string]any{"host": "h", "known_hosts": []any{int64(1)}}, []string{"known_hosts: element 1 is not a string"}},
		{map[string]any{"host": "h", "insecure_ignore_host_key": "yes"}, []string{"not a bool"}},
		// Every problem is reported at once.
		{map[string]any{"port": int64(0), "x": 1, "keepalive": "y"}, []string{"host: missing", "x: unknown", "keepalive:"}},
	} {
		_, err := ParseOptions(c.in)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("ParseOptions(%v) = %v, want it to say %q", c.in, err, w)
			}
		}
	}
}

// OptionKeys documents exactly the keys ParseOptions reads, each with a
// type, a default or a note, and one sentence of help; the defaults parse.
func TestOptionKeysTable(t *testing.T) {
	defaults := map[string]any{"host": "h"}
	for _, k := range OptionKeys {
		if k.Kind == "" || (k.Default == nil) == (k.Note == "") || !strings.HasSuffix(k.Help, ".") || strings.Contains(k.Help, ". ") {
			t.Errorf("%s: want a kind, a default or a note (not both), and one sentence of help: %+v", k.Name, k)
		}
		if k.Default != nil {
			defaults[k.Name] = k.Default
		}
		if _, err := ParseOptions(map[string]any{"host": "h", k.Name: k.Default}); k.Default != nil && err != nil {
			t.Errorf("%s: its default does not parse: %v", k.Name, err)
		}
	}
	got, err := ParseOptions(defaults)
	want, _ := ParseOptions(map[string]any{"host": "h"})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the table's defaults give %+v, %v; leaving them out gives %+v", got, err, want)
	}
}

// quote must survive a real shell, for any byte but NUL.
func TestQuoteThroughShell(t *testing.T) {
	words := []string{"", "plain", "a b", "it's", `"double"`, "$HOME", "`id`", "a\nb", "\\", "-n", "*", "~", "é ü", "x;y|z&w"}
	var b strings.Builder
	b.WriteString("printf '%s\\0'")
	for _, w := range words {
		b.WriteString(" " + quote(w))
	}
	out, err := exec.Command("sh", "-c", b.String()).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !reflect.DeepEqual(got, words) {
		t.Errorf("through sh: %q, want %q", got, words)
	}
}

func TestRemoteCommand(t *testing.T) {
	for _, c := range []struct {
		spec    providers.Spec
		refused []string
		want    string
	}{
		{providers.Spec{}, nil, ""},
		{providers.Spec{Command: []string{"ls", "-l", "a b"}}, nil, hungUpGuard + "exec ls -l 'a b'"},
		{providers.Spec{Dir: "/w s"}, nil, hungUpGuard + `mkdir -p -- '/w s' && cd -- '/w s' && exec "${SHELL:-/bin/sh}" -l`},
		{providers.Spec{Command: []string{"true"}}, []string{"A=it's", "bad-name=x"}, hungUpGuard + `export A='it'\''s' && exec true`},
	} {
		if got := remoteCommand(c.spec, c.refused); got != c.want {
			t.Errorf("remoteCommand(%+v, %q) = %q, want %q", c.spec, c.refused, got, c.want)
		}
	}
}
