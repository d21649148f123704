package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/ctl"
)

// The global flags work after the subcommand too: ctl ls --json is what
// people type.
func TestCtlGlobalFlagsAfterTheSubcommand(t *testing.T) {
	path, _ := fakeServer(t)
	out, errOut, code := runBin(t, "", "ctl", "ls", "--json", "-S", path)
	var list []map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 {
		t.Fatalf("ctl ls --json -S PATH: exit %d, stdout %q, stderr %q; want the JSON list", code, out, errOut)
	}
	if out, _, code := ctlBin(t, path, "screen", "1", "--json"); code != exitOK || !strings.Contains(out, `"screen"`) {
		t.Errorf("ctl screen 1 --json: exit %d, %q; want the reply as JSON", code, out)
	}
}

// A usage error prints its reason and the usage once; a duration without
// its unit says how to write it.
func TestCtlUsageOnce(t *testing.T) {
	path, _ := fakeServer(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"wait", "--timeout", "2", "--state", "exited", "2"}, "write 2s"},
		{[]string{"ls", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"kill"}, "name one session"},
		{[]string{"status", "1", "idle", "--ttl", "1.5"}, "write 1.5s"},
		{[]string{"wait", "-h"}, "usage: sandmux ctl wait"},
	} {
		_, errOut, code := ctlBin(t, path, c.args...)
		sub := "usage: sandmux ctl " + c.args[0]
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, sub) != 1 || strings.Count(errOut, c.want) != 1 {
			t.Errorf("ctl %q: exit %d, stderr:\n%s\nwant exit 2, %q once and %q once", c.args, code, errOut, c.want, sub)
		}
	}
}

// ctl -h's first line names every subcommand.
func TestCtlHelpListsEverySubcommand(t *testing.T) {
	_, errOut, _ := runBin(t, "", "ctl", "-h")
	first, _, _ := strings.Cut(errOut, "\n")
	for _, name := range slices.Sorted(maps.Keys(ctl.Commands)) {
		if !strings.Contains(first, "|"+name+"|") && !strings.Contains(first, " "+name+"|") && !strings.Contains(first, "|"+name+" ") {
			t.Errorf("ctl -h's first line does not list %s: %q", name, first)
		}
	}
	if strings.Count(errOut, "usage: sandmux ctl") != 1 {
		t.Errorf("ctl -h prints the usage %d times:\n%s", strings.Count(errOut, "usage: sandmux ctl"), errOut)
	}
}
