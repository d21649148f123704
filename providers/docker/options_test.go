package docker

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseOptions(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want Options
		err  string // a substring of the error; "" means none
	}{
		{name: "image defaults", in: map[string]any{"image": "alpine"},
			want: Options{Image: "alpine", Workdir: "/workspace", RemoveOnClose: true, Shell: "/bin/sh", ConnectTimeout: DefaultConnectTimeout}},
		{name: "container keeps its own workdir", in: map[string]any{"container": "web"},
			want: Options{Container: "web", RemoveOnClose: true, Shell: "/bin/sh", ConnectTimeout: DefaultConnectTimeout}},
		{name: "everything", in: map[string]any{
			"image": "alpine", "workdir": "/src/", "remove_on_close": false, "user": "1000:1000",
			"shell": "/bin/bash", "host": "tcp://10.0.0.2:2376"},
			want: Options{Image: "alpine", Workdir: "/src", User: "1000:1000", Shell: "/bin/bash", Host: "tcp://10.0.0.2:2376", ConnectTimeout: DefaultConnectTimeout}},
		// The config hands over every key, with "" for strings left unset.
		{name: "config defaults", in: map[string]any{
			"container": "web", "image": "", "workdir": "", "remove_on_close": true, "user": "", "shell": "/bin/sh", "host": "", "connect_timeout": ""},
			want: Options{Container: "web", RemoveOnClose: true, Shell: "/bin/sh", ConnectTimeout: DefaultConnectTimeout}},
		{name: "connect timeout", in: map[string]any{"image": "a", "connect_timeout": "1.5s"},
			want: Options{Image: "a", Workdir: "/workspace", RemoveOnClose: true, Shell: "/bin/sh", ConnectTimeout: 1500 * time.Millisecond}},
		{name: "connect timeout not a duration", in: map[string]any{"image": "a", "connect_timeout": "soon"}, err: `connect_timeout: "soon" is not a duration`},
		{name: "connect timeout out of range", in: map[string]any{"image": "a", "connect_timeout": "1h"}, err: "connect_timeout: 1h0m0s is out of range"},
		{name: "connect timeout a number", in: map[string]any{"image": "a", "connect_timeout": int64(10)}, err: "connect_timeout: 10 (int64) is not a duration"},
		{name: "neither", in: map[string]any{}, err: "set container"},
		{name: "both", in: map[string]any{"image": "a", "container": "b"}, err: "both set"},
		{name: "unknown key", in: map[string]any{"image": "a", "volume": "x"}, err: "volume: unknown key"},
		{name: "wrong type", in: map[string]any{"image": int64(3)}, err: "image: 3 (int64) is not a string"},
		{name: "bool as string", in: map[string]any{"image": "a", "remove_on_close": "yes"}, err: "not a bool"},
		{name: "array", in: map[string]any{"image": "a", "shell": []any{"bash"}}, err: "an array is not a string"},
		{name: "relative workdir", in: map[string]any{"image": "a", "workdir": "src"}, err: "not absolute"},
		{name: "empty shell", in: map[string]any{"image": "a", "shell": " "}, err: "shell: empty"},
		{name: "ssh host", in: map[string]any{"image": "a", "host": "ssh://me@box"}, err: "forward the socket"},
		{name: "bad host", in: map[string]any{"image": "a", "host": "localhost"}, err: "not an engine address"},
		{name: "odd scheme", in: map[string]any{"image": "a", "host": "npipe:////./pipe/docker"}, err: "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOptions(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseOptions = %+v, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseOptions = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// Every documented key parses with its documented default.
func TestOptionKeysDocumentParseOptions(t *testing.T) {
	m := map[string]any{}
	for _, k := range OptionKeys {
		if k.Name == "" || k.Kind == "" || k.Help == "" || k.Default == nil {
			t.Errorf("key %+v is not fully documented", k)
		}
		m[k.Name] = k.Default
	}
	m["image"] = "alpine"
	got, err := ParseOptions(m)
	if err != nil {
		t.Fatalf("ParseOptions(defaults) = %v", err)
	}
	want := Options{Image: "alpine", Workdir: DefaultWorkdir, RemoveOnClose: true, Shell: "/bin/sh", ConnectTimeout: DefaultConnectTimeout}
	if got != want {
		t.Errorf("ParseOptions(defaults) = %+v, want %+v", got, want)
	}
}

func TestContainerName(t *testing.T) {
	n := containerName("my box/ü" + strings.Repeat("x", 60))
	if !strings.HasPrefix(n, "sandmux-my-box-") || len(n) > 60 || invalidNameChars.MatchString(n) {
		t.Errorf("containerName = %q", n)
	}
	if first, second := containerName("a"), containerName("a"); first == second {
		t.Error("two containers for one sandbox get the same name")
	}
}
