package serve

import (
	"slices"
	"testing"
)

// Ad-hoc commands that share their first word are named by as many more
// words as tell them apart; the rest keep their first word.
func TestAdHocNames(t *testing.T) {
	for _, c := range []struct{ cmds, want []string }{
		{[]string{"htop", "make test"}, []string{"htop", "make"}},
		{[]string{"echo pane1; exec bash", "echo pane2; exec bash", "top"}, []string{"echo pane1", "echo pane2", "top"}},
		{[]string{"make -C a test", "make -C b test"}, []string{"make -C a", "make -C b"}},
		{[]string{"cat", "cat"}, []string{"cat", "cat"}}, // the UI makes these cat, cat-2
		{[]string{"(cd x && ls)", "(cd y && ls)"}, []string{"cd x", "cd y"}},
	} {
		if got := AdHocNames(c.cmds); !slices.Equal(got, c.want) {
			t.Errorf("AdHocNames(%q) = %q, want %q", c.cmds, got, c.want)
		}
	}
}

// A command given as one string runs as the program itself when it is
// a plain word (so a missing one fails the start, saying so), else
// through sh -c; a run pane is named by the command's own first word.
func TestCommandLineAndRunPane(t *testing.T) {
	for cmd, want := range map[string][]string{
		"htop": {"htop"}, "make test": {"sh", "-c", "make test"}, "a|b": {"sh", "-c", "a|b"}, "": {"sh", "-c", ""},
	} {
		if got := commandLine(cmd); !slices.Equal(got, want) {
			t.Errorf("commandLine(%q) = %q, want %q", cmd, got, want)
		}
	}
	for _, c := range []struct {
		name string
		argv []string
		want string
	}{
		{"", []string{"/usr/bin/top"}, "top"},
		{"", []string{"echo hi; exec cat"}, "echo"},
		{"", []string{"sh", "-c", "vim x"}, "vim"},
		{"mine", []string{"cat"}, "mine"},
	} {
		if got := runPane(c.name, c.argv).Name; got != c.want {
			t.Errorf("runPane(%q, %q) is named %q, want %q", c.name, c.argv, got, c.want)
		}
	}
}
