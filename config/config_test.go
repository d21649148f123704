package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/status"
)

// hermetic points every directory the config reads at a fresh temp dir and
// returns it.
func hermetic(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("SHELL", "/bin/sh")
	t.Chdir(dir)
	return dir
}

func TestConfigErrors(t *testing.T) {
	hermetic(t)
	const sb = "[[sandbox]]\nname = \"a\"\n" // lines 1-2
	const sb2 = "[[sandbox]]\nname = \"b\"\n"
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		// The file itself.
		{"syntax", sb + "size = \n", 3, "", "fix the TOML syntax"},
		{"duplicate key", sb + "name = \"b\"\n", 3, "", "already been defined"},
		{"no sandboxes", "[ui]\n", 0, "sandbox", "no sandboxes"},
		{"empty sandbox array", "sandbox = []\n", 1, "sandbox", "no sandboxes"},

		// Shape: tables where tables belong.
		{"unknown root key", sb + "[[sandboxes]]\n", 3, "sandboxes", "unknown key (the tables are"},
		{"unknown root value", "colour = 1\n" + sb, 1, "colour", "unknown key"},
		{"defaults not a table", "defaults = 1\n" + sb, 1, "defaults", "1 is not a table (write [defaults]"},
		{"single sandbox table", "[sandbox]\nname = \"a\"\n", 1, "sandbox", "write [[sandbox]], with double brackets"},
		{"sandbox not tables", "sandbox = \"a\"\n", 1, "sandbox", `"a" is not an array of tables`},
		{"sandbox element", "sandbox = [\n  { name = \"a\" },\n  2,\n]\n", 3, "sandbox[1]", "2 is not a table"},
		{"ui array of tables", sb + "[[ui]]\n", 3, "ui", "an array of tables is not a table (write [ui]"},
		{"providers not a table", "providers = []\n" + sb, 1, "providers", "[] is not a table"},
		{"provider not a table", sb + "[providers]\nlocal = \"x\"\n", 4, "providers.local", `"x" is not a table (write [providers.local]`},
		{"unknown provider table", sb + "[providers.k8s]\n", 3, "providers.k8s", `unknown provider (use one of "local", "ssh"`},

		// Unknown keys at every level.
		{"unknown in defaults", "[defaults]\nstop-grace = \"1s\"\n" + sb, 2, "defaults.stop-grace", `did you mean "stop_grace"?`},
		{"unknown in sandbox", sb + sb2 + "colour = \"red\"\n", 5, "sandbox[1].colour", "unknown key (use one of name, provider"},
		{"unknown dotted in sandbox", sb + "x.y = 1\n", 3, "sandbox[0].x", "unknown key"},
		{"unknown in ui", sb + "[ui]\nfsp = 30\n", 4, "ui.fsp", `did you mean "fps"?`},
		{"keys are case-sensitive", sb + "[ui]\nFPS = 30\n", 4, "ui.FPS", `did you mean "fps"?`},
		{"tables are case-sensitive", sb + "[UI]\n", 3, "UI", "unknown key"},
		{"unknown in providers.local", sb + "[providers.local]\nsh = \"/bin/sh\"\n", 4, "providers.local.sh", "unknown key"},
		{"unknown in providers.ssh", sb + "[providers.ssh]\nhots = \"x\"\n", 4, "providers.ssh.hots", `unknown key (the ssh provider takes "host"`},
		{"ssh sandbox without host", "[[sandbox]]\nname = \"a\"\nprovider = \"ssh\"\n", 3, "sandbox[0].provider", "host"},
		{"ssh sandbox bad port", "[[sandbox]]\nname = \"a\"\nprovider = \"ssh\"\nssh = { host = \"h\", port = 99999 }\n", 4, "sandbox[0].ssh", "port"},
		{"docker table on ssh sandbox", "[[sandbox]]\nname = \"a\"\nprovider = \"ssh\"\nssh = { host = \"h\" }\ndocker = { image = \"x\" }\n", 5, "sandbox[0].docker", `this sandbox's provider is "ssh"`},
		{"docker needs image or container", "[[sandbox]]\nname = \"a\"\nprovider = \"docker\"\n[sandbox.docker]\nuser = \"u\"\n", 4, "sandbox[0].docker", "image"},
		{"exec with snapshots", "[[sandbox]]\nname = \"a\"\nprovider = \"exec\"\nsnapshot = \"on-close\"\nexec = { template = \"sh\" }\n", 4, "sandbox[0].snapshot", "cannot read or write a workspace"},
		{"exec template placeholder", "[[sandbox]]\nname = \"a\"\nprovider = \"exec\"\nexec = { template = \"kubectl exec -it {pod} -- sh\" }\n", 4, "sandbox[0].exec", "{pod}"},
		{"quoted unknown key", sb + "\"odd key\" = 1\n", 3, `sandbox[0]."odd key"`, "unknown key"},
		{"name in defaults", "[defaults]\nname = \"x\"\n" + sb, 2, "defaults.name", "set it in each [[sandbox]]"},
		{"workspace in defaults", "[defaults]\nworkspace = \"/x\"\n" + sb, 2, "defaults.workspace", "set it in each [[sandbox]]"},

		// name
		{"name missing", sb + "[[sandbox]]\nsize = \"80x24\"\n", 3, "sandbox[1].name", "is missing"},
		{"name not a string", "[[sandbox]]\nname = 1\n", 2, "sandbox[0].name", "1 is not a string"},
		{"name with slash", "[[sandbox]]\nname = \"a/b\"\n", 2, "sandbox[0].name", "cannot name a directory"},
		{"name dot dot", "[[sandbox]]\nname = \"..\"\n", 2, "sandbox[0].name", "cannot name a directory"},
		{"name leading dash", "[[sandbox]]\nname = \"-a\"\n", 2, "sandbox[0].name", "cannot name a directory"},
		{"name too long", "[[sandbox]]\nname = \"" + strings.Repeat("a", 65) + "\"\n", 2, "sandbox[0].name", "at most 64"},
		{"name duplicate", sb + "\n" + sb, 5, "sandbox[1].name", `"a" already names sandbox[0]`},
		{"name duplicate inline", "sandbox = [\n  { name = \"a\" },\n  { name = \"a\" },\n]\n", 3, "sandbox[1].name", "already names"},

		// provider, command, workspace, env, size, term
		{"provider unknown", sb + "provider = \"sshh\"\n", 3, "sandbox[0].provider", `"sshh" is not a provider`},
		{"command type", sb + "command = 1\n", 3, "sandbox[0].command", "1 is not a command"},
		{"command empty array", sb + "command = []\n", 3, "sandbox[0].command", "[] runs nothing"},
		{"command element", sb + "command = [\n  \"make\",\n  2,\n]\n", 5, "sandbox[0].command[1]", "2 is not a string"},
		{"command empty program", sb + "command = [\"\", \"x\"]\n", 3, "sandbox[0].command[0]", "the program name is empty"},
		{"workspace type", sb + "workspace = false\n", 3, "sandbox[0].workspace", "false is not a string"},
		{"workspace empty", sb + "workspace = \"\"\n", 3, "sandbox[0].workspace", "is empty"},
		{"workspace other user", sb + "workspace = \"~bob/src\"\n", 3, "sandbox[0].workspace", "only ~/ is expanded"},
		{"env not a table", sb + "env = [\"A=1\"]\n", 3, "sandbox[0].env", "is not a table (write e.g. env = {"},
		{"env value", sb + "[sandbox.env]\nA = \"1\"\nB = 2\n", 5, "sandbox[0].env.B", "2 is not a string"},
		{"env dotted value", sb + "env.B = true\n", 3, "sandbox[0].env.B", "true is not a string"},
		{"env name", sb + "env = { \"A B\" = \"1\" }\n", 3, `sandbox[0].env."A B"`, "is not a variable name"},
		{"env NUL", sb + "env = { A = \"x\\u0000y\" }\n", 3, "sandbox[0].env.A", "NUL"},
		{"size syntax", sb + "size = \"80*24\"\n", 3, "sandbox[0].size", `"80*24" is not a size (write "COLSxROWS"`},
		{"size type", sb + "size = 80\n", 3, "sandbox[0].size", "80 is not a size"},
		{"size zero", sb + "size = \"0x24\"\n", 3, "sandbox[0].size", `"0x24" is out of range`},
		{"size huge", sb + "size = \"80x1001\"\n", 3, "sandbox[0].size", "out of range"},
		{"size overflow", sb + "size = \"80x70000\"\n", 3, "sandbox[0].size", "is not a size"},
		{"term empty", sb + "term = \"\"\n", 3, "sandbox[0].term", "is not a terminal type"},
		{"term space", sb + "term = \"xterm 256\"\n", 3, "sandbox[0].term", "is not a terminal type"},

		// graces
		{"stop_grace word", sb + sb2 + "stop_grace = \"abc\"\n", 5, "sandbox[1].stop_grace", `"abc" is not a duration (write e.g. "2s"`},
		{"stop_grace integer", sb + "stop_grace = 2\n", 3, "sandbox[0].stop_grace", "2 is not a duration"},
		{"stop_grace negative", sb + "stop_grace = \"-1s\"\n", 3, "sandbox[0].stop_grace", `"-1s" is out of range (use "10ms" to "10m")`},
		{"stop_grace zero", sb + "stop_grace = \"0s\"\n", 3, "sandbox[0].stop_grace", `"0s" is out of range`},
		{"kill_grace long", sb + "kill_grace = \"11m\"\n", 3, "sandbox[0].kill_grace", `"11m" is out of range`},
		{"drain_grace unit", sb + "drain_grace = \"1 s\"\n", 3, "sandbox[0].drain_grace", "is not a duration"},
		{"inherited grace blamed on defaults", "[defaults]\nkill_grace = \"1h\"\n" + sb + "[[sandbox]]\nname = \"b\"\n", 2, "defaults.kill_grace", "out of range"},
		{"unused default still checked", "[defaults]\nkill_grace = \"1h\"\n" + sb + "kill_grace = \"1s\"\n", 2, "defaults.kill_grace", "out of range"},

		// snapshot policy
		{"snapshot value", sb + "snapshot = \"sometimes\"\n", 3, "sandbox[0].snapshot", `is not a snapshot policy (write one of "never", "on-close"`},
		{"snapshot type", sb + "snapshot = true\n", 3, "sandbox[0].snapshot", "true is not a snapshot policy"},
		{"restore quoted bool", sb + "restore = \"true\"\n", 3, "sandbox[0].restore", "write true without quotes"},
		{"restore word", sb + "restore = \"merge\"\n", 3, "sandbox[0].restore", `write false, true or "replace"`},
		{"restore number", sb + "restore = 1\n", 3, "sandbox[0].restore", "1 is not a restore policy"},
		{"snapshot_exclude type", sb + "snapshot_exclude = \"*.log\"\n", 3, "sandbox[0].snapshot_exclude", "is not an array of patterns"},
		{"snapshot_exclude element", sb + "snapshot_exclude = [\"a\", 1]\n", 3, "sandbox[0].snapshot_exclude[1]", "1 is not a string"},
		{"snapshot_exclude pattern", sb + "snapshot_exclude = [\"a\", \"[b\"]\n", 3, "sandbox[0].snapshot_exclude[1]", `"[b" is not a pattern`},
		{"snapshot_exclude empty", sb + "snapshot_exclude = [\"\"]\n", 3, "sandbox[0].snapshot_exclude[0]", "is not a pattern"},
		{"snapshot_keep zero", sb + "snapshot_keep = 0\n", 3, "sandbox[0].snapshot_keep", "0 is out of range (use 1 to 1000)"},
		{"snapshot_keep huge", sb + "snapshot_keep = 99999999999999\n", 3, "sandbox[0].snapshot_keep", "99999999999999 is out of range"},
		{"snapshot_keep string", sb + "snapshot_keep = \"5\"\n", 3, "sandbox[0].snapshot_keep", `"5" is not a whole number`},

		// [ui]
		{"prefix empty", sb + "[ui]\nprefix = \"\"\n", 4, "ui.prefix", "is not a key (write e.g. \"ctrl+b\""},
		{"prefix modifier only", sb + "[ui]\nprefix = \"ctrl+\"\n", 4, "ui.prefix", "is not a key"},
		{"prefix unknown modifier", sb + "[ui]\nprefix = \"cmd+b\"\n", 4, "ui.prefix", "is not a key"},
		{"prefix repeated modifier", sb + "[ui]\nprefix = \"ctrl+ctrl+b\"\n", 4, "ui.prefix", "is not a key"},
		{"prefix word", sb + "[ui]\nprefix = \"ctrl+bee\"\n", 4, "ui.prefix", "is not a key"},
		{"fps zero", sb + "[ui]\nfps = 0\n", 4, "ui.fps", "0 is out of range (use 1 to 240)"},
		{"fps high", sb + "[ui]\nfps = 241\n", 4, "ui.fps", "241 is out of range"},
		{"fps float", sb + "[ui]\nfps = 30.0\n", 4, "ui.fps", "30 is not a whole number"},
		{"scrollback negative", sb + "[ui]\nscrollback = -1\n", 4, "ui.scrollback", "-1 is out of range (use 0 to 1000000)"},
		{"scrollback high", sb + "[ui]\nscrollback = 1_000_001\n", 4, "ui.scrollback", "out of range"},
		{"attention_after", sb + "[ui]\nattention_after = \"1y\"\n", 4, "ui.attention_after", "is not a duration"},
		{"attention_after long", sb + "[ui]\nattention_after = \"25h\"\n", 4, "ui.attention_after", `"25h" is out of range (use "1s" to "24h")`},
		{"notify way", sb + "[ui]\nnotify = [\"terminal\", \"email\"]\n", 4, "ui.notify[1]", `"email" is not a way to notify`},
		{"notify command missing", sb + "[ui]\nnotify = [\"command\"]\n", 4, "ui.notify", "no notify_command says what to run"},
		{"notify type", sb + "[ui]\nnotify = \"bell\"\n", 4, "ui.notify", "is not an array"},

		// [[rule]]
		{"rule regexp", sb + "[[rule]]\nstate = \"waiting\"\nmatch = \"(\"\n", 5, "rule[0].match", "is not a regular expression"},
		{"rule state", sb + "[[rule]]\nmatch = \"x\"\nstate = \"busy\"\n", 5, "rule[0].state", "a rule may say waiting, working, idle, done or failed"},
		{"rule no state", sb + "[[rule]]\nmatch = \"x\"\n", 3, "rule[0]", "has no state"},
		{"rule rows", sb + "[[rule]]\nmatch = \"x\"\nstate = \"idle\"\nrows = 0\n", 6, "rule[0].rows", "0 is out of range (use 1 to 200)"},
		{"rule hold", sb + "[[rule]]\nmatch = \"x\"\nstate = \"idle\"\nhold = \"soon\"\n", 6, "rule[0].hold", "is not a duration"},
		{"rule command", sb + "[[rule]]\nmatch = \"x\"\nstate = \"idle\"\ncommand = \"*\"\n", 6, "rule[0].command", "is not a regular expression"},
		{"rule sandboxes", sb + "[[rule]]\nmatch = \"x\"\nstate = \"idle\"\nsandboxes = [\"[\"]\n", 6, "rule[0].sandboxes[0]", "is not a name or pattern"},
		{"rule unknown key", sb + "[[rule]]\nmatch = \"x\"\nstate = \"idle\"\nregex = \"y\"\n", 6, "rule[0].regex", "unknown key"},
		{"rule second", sb + "[[rule]]\nmatch = \"x\"\nstate = \"idle\"\n[[rule]]\nmatch = \"x\"\nstate = \"gone\"\n", 8, "rule[1].state", "a rule may say"},
		{"rule single table", sb + "[rule]\nmatch = \"x\"\n", 3, "rule", "is a single table"},
		{"ui inline", "ui = { fps = 0 }\n" + sb, 1, "ui.fps", "out of range"},

		// [record]
		{"record retain", sb + "[record]\nretain = \"soon\"\n", 4, "record.retain", "is not a duration"},
		{"record retain negative", sb + "[record]\nretain = \"-1s\"\n", 4, "record.retain", "out of range"},
		{"record retain_bytes", sb + "[record]\nretain_bytes = \"lots\"\n", 4, "record.retain_bytes", `is not a size (write e.g. "16MiB"`},
		{"record retain_bytes number", sb + "[record]\nretain_bytes = 16\n", 4, "record.retain_bytes", "is not a size"},
		{"record retain_bytes small", sb + "[record]\nretain_bytes = \"1KiB\"\n", 4, "record.retain_bytes", "1KiB is out of range (use 64KiB to 64GiB)"},
		{"record retain_total below one", sb + "[record]\nretain_bytes = \"32MiB\"\nretain_total = \"16MiB\"\n", 5, "record.retain_total", "less than retain_bytes"},
		{"record dir tilde", sb + "[record]\ndir = \"~x/r\"\n", 4, "record.dir", "only ~/ is expanded"},
		{"record idle_limit", sb + "[record]\nidle_limit = 5\n", 4, "record.idle_limit", "is not a duration"},
		{"record unknown", sb + "[record]\nretian = \"5m\"\n", 4, "record.retian", `did you mean "retain"?`},

		// [providers.local]
		{"shell relative", sb + "[providers.local]\nshell = \"zsh\"\n", 4, "providers.local.shell", `"zsh" is not an absolute path`},
		{"shell type", sb + "[providers.local]\nshell = [\"/bin/sh\"]\n", 4, "providers.local.shell", "is not a string"},
		{"shell inline", "providers = { local = { shell = \"sh\" } }\n" + sb, 1, "providers.local.shell", "is not an absolute path"},

		// Lines stay right around multi-line values.
		{"after multi-line string", sb + "command = \"\"\"\n[[sandbox]]\nname = 'x'\n\"\"\"\n" + sb2 + "size = 1\n", 9, "sandbox[1].size", "is not a size"},
		{"after multi-line array", sb + "snapshot_exclude = [\n  \"a\", # [[sandbox]]\n  \"b\",\n]\nsize = 1\n", 7, "sandbox[0].size", "is not a size"},
		{"sub-table of an array", sb + sb2 + "[sandbox.env]\nA = 1\n", 6, "sandbox[1].env.A", "1 is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig("sandmux.toml", []byte(tt.doc))
			if err == nil {
				t.Fatalf("parseConfig accepted it: %+v", c)
			}
			var ce *configError
			if !errors.As(err, &ce) {
				t.Fatalf("error %q (%T) is not a *configError", err, err)
			}
			want := "sandmux.toml:"
			if tt.line > 0 {
				want += strconv.Itoa(tt.line) + ":"
			}
			want += " "
			if tt.key != "" {
				want += tt.key + ": "
			}
			if got := err.Error(); !strings.HasPrefix(got, want) || !strings.Contains(got, tt.msg) || strings.Contains(got, "\n") {
				t.Errorf("got error\n\t%s\nwant one line starting %q and containing %q", got, want, tt.msg)
			}
		})
	}
}

// Every mistake is reported in one run, in file order, each on its own line.
func TestConfigErrorsAllReported(t *testing.T) {
	hermetic(t)
	doc := `[[sandbox]]
name = "a"
size = "big"

[[sandbox]]
name = "b"
stop_grace = "soon"
colour = 1

[ui]
fps = "fast"
`
	_, err := parseConfig("x.toml", []byte(doc))
	want := []string{
		`x.toml:3: sandbox[0].size: "big" is not a size`,
		`x.toml:7: sandbox[1].stop_grace: "soon" is not a duration`,
		`x.toml:8: sandbox[1].colour: unknown key`,
		`x.toml:11: ui.fps: "fast" is not a whole number`,
	}
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(lines), len(want), err)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("error %d = %q, want prefix %q", i, lines[i], want[i])
		}
	}
}

// A value's mistake is reported in the same run as a type's or an
// unknown key's, and a key that did not decode adds no echo.
func TestConfigErrorsOfBothPassesAtOnce(t *testing.T) {
	hermetic(t)
	doc := `[ui]
fps = "x"
bogus = 1

[[sandbox]]
name = "a"
provider = "nope"
size = 1
`
	_, err := parseConfig("x.toml", []byte(doc))
	want := []string{
		`x.toml:2: ui.fps: "x" is not a whole number`,
		`x.toml:3: ui.bogus: unknown key`,
		`x.toml:7: sandbox[0].provider: `,
		`x.toml:8: sandbox[0].size: 1 is not a size`,
	}
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(lines), len(want), err)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("error %d = %q, want prefix %q", i, lines[i], want[i])
		}
	}
}

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

func TestConfigSearchOrder(t *testing.T) {
	write := func(t *testing.T, path, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("[[sandbox]]\nname = \""+name+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func(t *testing.T, path string) (source, sandbox string) {
		t.Helper()
		c, err := loadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		return c.Source, c.Sandboxes[0].Name
	}

	t.Run("built-in default", func(t *testing.T) {
		hermetic(t)
		if src, name := load(t, ""); src != BuiltinSource || name != "shell-1" {
			t.Errorf("got %s from %s", name, src)
		}
	})
	t.Run("default config home", func(t *testing.T) {
		home := hermetic(t)
		write(t, filepath.Join(home, ".config/sandmux/config.toml"), "home")
		if src, name := load(t, ""); name != "home" || src != filepath.Join(home, ".config/sandmux/config.toml") {
			t.Errorf("got %s from %s", name, src)
		}
	})
	t.Run("XDG_CONFIG_HOME", func(t *testing.T) {
		home := hermetic(t)
		write(t, filepath.Join(home, ".config/sandmux/config.toml"), "home")
		write(t, filepath.Join(home, "xdg/sandmux/config.toml"), "xdg")
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
		if _, name := load(t, ""); name != "xdg" {
			t.Errorf("got %s", name)
		}
		// A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
		t.Setenv("XDG_CONFIG_HOME", "xdg")
		if _, name := load(t, ""); name != "home" {
			t.Errorf("relative XDG_CONFIG_HOME: got %s", name)
		}
	})
	t.Run("current directory first", func(t *testing.T) {
		home := hermetic(t)
		write(t, filepath.Join(home, ".config/sandmux/config.toml"), "home")
		write(t, filepath.Join(home, "sandmux.toml"), "here")
		if src, name := load(t, ""); name != "here" || src != "sandmux.toml" {
			t.Errorf("got %s from %s", name, src)
		}
	})
	t.Run("-c wins", func(t *testing.T) {
		home := hermetic(t)
		write(t, filepath.Join(home, "sandmux.toml"), "here")
		write(t, filepath.Join(home, "other.toml"), "other")
		if src, name := load(t, "other.toml"); name != "other" || src != "other.toml" {
			t.Errorf("got %s from %s", name, src)
		}
	})
	t.Run("-c missing is an error", func(t *testing.T) {
		hermetic(t)
		_, err := loadConfig("missing.toml")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.toml") || !strings.Contains(err.Error(), "-c") {
			t.Errorf("got %v, want a not-exist error naming the file and -c", err)
		}
	})
	t.Run("unreadable file is an error, not skipped", func(t *testing.T) {
		home := hermetic(t)
		if err := os.Mkdir(filepath.Join(home, "sandmux.toml"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := loadConfig(""); err == nil || !strings.Contains(err.Error(), "sandmux.toml") {
			t.Errorf("got %v, want an error naming sandmux.toml", err)
		}
	})
	t.Run("error names the found file", func(t *testing.T) {
		home := hermetic(t)
		path := filepath.Join(home, ".config/sandmux/config.toml")
		write(t, path, "no good")
		_, err := loadConfig("")
		if err == nil || !strings.HasPrefix(err.Error(), path+":2: sandbox[0].name:") {
			t.Errorf("got %v", err)
		}
	})
}

func TestConfigDefaultFile(t *testing.T) {
	dir := hermetic(t)
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	c, err := parseConfig(BuiltinSource, defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sandboxes) != 3 {
		t.Fatalf("%d sandboxes, want 3", len(c.Sandboxes))
	}
	for _, s := range c.Sandboxes {
		if s.Provider != "local" || s.Command != nil || s.Workspace != filepath.Join(dir, "data/sandmux/workspaces", s.Name) {
			t.Errorf("sandbox %+v is not a local shell in its own workspace", s)
		}
	}
}

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

// repoDir is the repository's root, where the example file lives; tests
// that call hermetic leave the package directory.
var repoDir = func() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Dir(dir)
}()

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

func TestConfigKeyLines(t *testing.T) {
	doc := `# comment [[sandbox]]
top = 1
[[sandbox]]
name = "a" # [ui]
s = """
[[sandbox]]
x = 1"""
[ sandbox . env ]
A = 'lit'
[[sandbox]]
"quoted.key" = 2
dotted . key = 3
arr = [
  1, # ]
  [2, 3],
  { in = 4 },
]
inline = { a = 1,
  b = { c = "}" } }
lit = '''
]'''
after = 5
[ui]
fps = 1
`
	want := map[string]int{
		"top": 2, "sandbox": 3, "sandbox[0]": 3, "sandbox[0].name": 4, "sandbox[0].s": 5,
		"sandbox[0].env": 8, "sandbox[0].env.A": 9, "sandbox[1]": 10, `sandbox[1]."quoted.key"`: 11,
		"sandbox[1].dotted": 12, "sandbox[1].dotted.key": 12, "sandbox[1].arr": 13, "sandbox[1].arr[0]": 14,
		"sandbox[1].arr[1]": 15, "sandbox[1].arr[1][0]": 15, "sandbox[1].arr[1][1]": 15,
		"sandbox[1].arr[2]": 16, "sandbox[1].arr[2].in": 16,
		"sandbox[1].inline": 18, "sandbox[1].inline.a": 18, "sandbox[1].inline.b": 19, "sandbox[1].inline.b.c": 19,
		"sandbox[1].lit": 20, "sandbox[1].after": 22, "ui": 23, "ui.fps": 24,
	}
	got := scanKeyLines([]byte(doc))
	if !reflect.DeepEqual(got, keyLines(want)) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: line %d, want %d", k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected key %s at line %d", k, v)
			}
		}
	}
	if n := got.find("sandbox[1].missing"); n != 10 {
		t.Errorf("find falls back to the table's line: got %d, want 10", n)
	}
}

// [[rule]] tables are compiled in the file's order, each with what it
// says and only for the panes it names.
func TestConfigRules(t *testing.T) {
	c, err := parseConfig("sandmux.toml", []byte(`[[sandbox]]
name = "agent-1"

[[rule]]
match = '(?m)^\s*Do you want to (\w+)'
rows = 5
state = "waiting"
reason = "asks to $1"
command = "claude"
sandboxes = ["agent-*"]
hold = "1s"

[[rule]]
match = "esc to interrupt"
state = "working"
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rules) != 2 || c.Rules[0].Rows() != 5 || c.Rules[1].Rows() != status.DefaultRuleRows {
		t.Fatalf("rules %+v", c.Rules)
	}
	if !c.Rules[0].AppliesTo("agent-1", []string{"claude"}) || c.Rules[0].AppliesTo("web", []string{"claude"}) || !c.Rules[1].AppliesTo("web", nil) {
		t.Error("the rules' filters are not as written")
	}
}
