package config

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

func TestConfigDefaultsInheritance(t *testing.T) {
	dir := hermetic(t)
	doc := `
[defaults]
command = "claude"
env = { A = "1", B = "2" }
size = "100x30"
term = "screen"
stop_grace = "3s"
kill_grace = "4s"
drain_grace = "500ms"
snapshot = "on-quit"
restore = true
snapshot_exclude = ["node_modules"]
snapshot_keep = 7

[[sandbox]]
name = "inherits"

[[sandbox]]
name = "overrides"
provider = "local"
command = ["make", "watch"]
workspace = "/src/p"
env = { B = "two", C = "3" }
size = "80x24"
stop_grace = "1s"
snapshot = "never"
restore = "replace"
snapshot_exclude = []
snapshot_keep = 1

[[sandbox]]
name = "shell"
command = ""
`
	c, err := parseConfig("sandmux.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, ".local", "share", "sandmux", "workspaces")
	want := []Sandbox{{
		Name: "inherits", Provider: "local", Command: []string{"sh", "-c", "claude"},
		Workspace: filepath.Join(ws, "inherits"), WorkspaceChosen: true, Env: map[string]string{"A": "1", "B": "2"},
		Size: providers.Size{Cols: 100, Rows: 30}, Term: "screen",
		StopGrace: 3 * time.Second, KillGrace: 4 * time.Second, DrainGrace: 500 * time.Millisecond,
		Snapshot: SnapshotOnQuit, Restore: RestoreIfEmpty, SnapshotExclude: []string{"node_modules"}, SnapshotKeep: 7,
		Options: map[string]any{"shell": ""},
	}, {
		Name: "overrides", Provider: "local", Command: []string{"make", "watch"},
		Workspace: "/src/p", Env: map[string]string{"A": "1", "B": "two", "C": "3"},
		Size: providers.Size{Cols: 80, Rows: 24}, Term: "screen",
		StopGrace: time.Second, KillGrace: 4 * time.Second, DrainGrace: 500 * time.Millisecond,
		Snapshot: SnapshotNever, Restore: RestoreReplace, SnapshotExclude: []string{}, SnapshotKeep: 1,
		Options: map[string]any{"shell": ""},
	}, {
		Name: "shell", Provider: "local", Command: nil,
		Workspace: filepath.Join(ws, "shell"), WorkspaceChosen: true, Env: map[string]string{"A": "1", "B": "2"},
		Size: providers.Size{Cols: 100, Rows: 30}, Term: "screen",
		StopGrace: 3 * time.Second, KillGrace: 4 * time.Second, DrainGrace: 500 * time.Millisecond,
		Snapshot: SnapshotOnQuit, Restore: RestoreIfEmpty, SnapshotExclude: []string{"node_modules"}, SnapshotKeep: 7,
		Options: map[string]any{"shell": ""},
	}}
	if !reflect.DeepEqual(c.Sandboxes, want) {
		t.Errorf("sandboxes:\n got %+v\nwant %+v", c.Sandboxes, want)
	}

	spec := c.Sandboxes[1].Spec()
	wantSpec := providers.Spec{
		Name: "overrides", Command: []string{"make", "watch"}, Env: []string{"A=1", "B=two", "C=3"},
		Dir: "/src/p", Size: providers.Size{Cols: 80, Rows: 24}, Term: "screen", Options: map[string]any{"shell": ""},
	}
	if !reflect.DeepEqual(spec, wantSpec) {
		t.Errorf("Spec():\n got %+v\nwant %+v", spec, wantSpec)
	}
	spec.Command[0] = "changed"
	if c.Sandboxes[1].Command[0] != "make" {
		t.Error("Spec shares its Command with the Sandbox")
	}
}

// With nothing set, a sandbox gets the table's defaults, and they match
// what the docs promise.
func TestConfigBuiltinDefaults(t *testing.T) {
	dir := hermetic(t)
	c, err := parseConfig("sandmux.toml", []byte("[[sandbox]]\nname = \"a\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Sandboxes[0]
	if s.Provider != "local" || s.Command != nil || s.Size != (providers.Size{Cols: 80, Rows: 24}) ||
		s.Term != providers.DefaultTerm || s.StopGrace != 2*time.Second || s.KillGrace != 2*time.Second ||
		s.DrainGrace != time.Second || s.Snapshot != SnapshotNever || s.Restore != RestoreOff ||
		s.SnapshotExclude != nil || s.SnapshotKeep != 5 || len(s.Env) != 0 {
		t.Errorf("defaults: %+v", s)
	}
	if want := filepath.Join(dir, ".local/share/sandmux/workspaces/a"); s.Workspace != want {
		t.Errorf("workspace = %q, want %q", s.Workspace, want)
	}
	wantUI := UIConfig{Prefix: "ctrl+b", FPS: 60, Scrollback: 2000, ActivityWindow: 2 * time.Second, AttentionAfter: 10 * time.Second,
		Notify: []string{"terminal"}, NotifyTimeout: 10 * time.Second, Clipboard: "write", Bell: "any", Notifications: "none"}
	if !reflect.DeepEqual(c.UI, wantUI) {
		t.Errorf("ui = %+v, want %+v", c.UI, wantUI)
	}
	if c.Providers.Local.Shell != "" {
		t.Errorf("shell = %q, want empty (the local provider's own choice)", c.Providers.Local.Shell)
	}
	if c.Source != "sandmux.toml" {
		t.Errorf("source = %q", c.Source)
	}
}

func TestConfigRestore(t *testing.T) {
	hermetic(t)
	for _, tt := range []struct {
		value string
		want  RestorePolicy
		str   string
	}{
		{"false", RestoreOff, "false"},
		{"true", RestoreIfEmpty, "true"},
		{`"replace"`, RestoreReplace, `"replace"`},
	} {
		c, err := parseConfig("r.toml", []byte("[[sandbox]]\nname = \"a\"\nrestore = "+tt.value+"\n"))
		if err != nil {
			t.Fatalf("restore = %s: %v", tt.value, err)
		}
		if got := c.Sandboxes[0].Restore; got != tt.want || got.String() != tt.str {
			t.Errorf("restore = %s: got %v (%d), want %d", tt.value, got, got, tt.want)
		}
	}
}

func TestConfigSnapshotPolicy(t *testing.T) {
	for p, want := range map[SnapshotPolicy][2]bool{
		SnapshotNever: {false, false}, SnapshotOnClose: {true, false},
		SnapshotOnQuit: {false, true}, SnapshotAlways: {true, true},
	} {
		if got := [2]bool{p.OnClose(), p.OnQuit()}; got != want {
			t.Errorf("%s: OnClose, OnQuit = %v, want %v", p, got, want)
		}
	}
}

func TestConfigWorkspace(t *testing.T) {
	dir := hermetic(t)
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	sub := filepath.Join(dir, "conf")
	doc := `
[[sandbox]]
name = "tilde"
workspace = "~/src/../src/p"
[[sandbox]]
name = "home"
workspace = "~"
[[sandbox]]
name = "relative"
workspace = "w"
[[sandbox]]
name = "xdg"
`
	c, err := parseConfig(filepath.Join(sub, "sandmux.toml"), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "src/p"), dir, filepath.Join(sub, "w"), filepath.Join(dir, "data/sandmux/workspaces/xdg")}
	for i, s := range c.Sandboxes {
		if s.Workspace != want[i] {
			t.Errorf("%s: workspace = %q, want %q", s.Name, s.Workspace, want[i])
		}
	}

	// A relative XDG_DATA_HOME is ignored, as the XDG spec says.
	t.Setenv("XDG_DATA_HOME", "data")
	c, err = parseConfig("sandmux.toml", []byte("[[sandbox]]\nname = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".local/share/sandmux/workspaces/x"); c.Sandboxes[0].Workspace != want {
		t.Errorf("workspace = %q, want %q", c.Sandboxes[0].Workspace, want)
	}
}
