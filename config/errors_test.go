package config

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

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
