package ctl

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/sandmux/sandmux/control"
)

// Flags may stand before or after a subcommand's arguments; -- ends them.
func TestCtlFlagsAnywhere(t *testing.T) {
	cases := []struct {
		sub  string
		args []string
		want control.Request
	}{
		{"wait", []string{"2", "--state", "exited", "--timeout", "5s"}, control.Request{Op: control.OpWait, Session: "2", State: "exited", Timeout: control.Duration(5e9)}},
		{"wait", []string{"--state", "closing", "web"}, control.Request{Op: control.OpWait, Session: "web", State: "closing"}},
		{"screen", []string{"1", "--ansi", "--scrollback"}, control.Request{Op: control.OpScreen, Session: "1", ANSI: true, Scrollback: true}},
		{"send", []string{"1", "hi", "--paste"}, control.Request{Op: control.OpSend, Session: "1", Data: []byte("hi"), Paste: true}},
		{"send", []string{"1", "--", "-n"}, control.Request{Op: control.OpSend, Session: "1", Data: []byte("-n")}},
		{"keys", []string{"1", "enter", "ctrl+c"}, control.Request{Op: control.OpKeys, Session: "1", Keys: []string{"enter", "ctrl+c"}}},
		{"quit", []string{"--kill"}, control.Request{Op: control.OpQuit, Kill: true}},
		{"run", []string{"--name", "x", "sh", "-c", "ls -l"}, control.Request{Op: control.OpRun, Name: "x", Argv: []string{"sh", "-c", "ls -l"}}},
	}
	for _, c := range cases {
		got, err := parseCtl(c.sub, c.args)
		if err != nil || !reqEqual(got, c.want) {
			t.Errorf("ctl %s %q = %+v, %v; want %+v", c.sub, c.args, got, err, c.want)
		}
	}
	for _, args := range [][]string{{"1", "-n"}, {"1", "--state"}, {"1", "2", "--state", "exited"}} {
		if _, err := parseCtl("send", args); err == nil {
			t.Errorf("ctl send %q parsed", args)
		}
	}
}

func parseCtl(sub string, args []string) (control.Request, error) {
	fs := flag.NewFlagSet(sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return Commands[sub].Parse(fs, args)
}

func reqEqual(a, b control.Request) bool {
	return a.Op == b.Op && a.Session == b.Session && a.State == b.State && a.Timeout == b.Timeout && a.ANSI == b.ANSI &&
		a.Scrollback == b.Scrollback && a.Paste == b.Paste && a.Kill == b.Kill && a.Name == b.Name &&
		string(a.Data) == string(b.Data) && slices.Equal(a.Keys, b.Keys) && slices.Equal(a.Argv, b.Argv)
}

// parseArgs keeps every argument that is not a flag, in order, and never
// panics, whatever it is given.
func FuzzCtlParseArgs(f *testing.F) {
	f.Add("wait\x002\x00--state\x00exited")
	f.Add("send\x001\x00--\x00-n\x00--paste")
	f.Add("screen\x00--ansi=true\x00-scrollback\x001")
	f.Add("keys\x00--\x00--\x00-")
	f.Fuzz(func(t *testing.T, joined string) {
		args := splitNUL(joined)
		if len(args) == 0 {
			return
		}
		sub, ok := Commands[args[0]]
		if !ok {
			return
		}
		fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		_, _ = sub.Parse(fs, args[1:]) // must not panic
		fs = flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Bool("b", false, "")
		pos, err := parseArgs(fs, args[1:])
		if err == nil && !isSubsequence(pos, args[1:]) {
			t.Errorf("parseArgs(%q) = %q: not the arguments, in order", args[1:], pos)
		}
	})
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == 0 {
			out, start = append(out, s[start:i]), i+1
		}
	}
	return append(out, s[start:])
}

func isSubsequence(sub, of []string) bool {
	i := 0
	for _, s := range of {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}
