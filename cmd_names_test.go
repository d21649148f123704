package main

import (
	"slices"
	"testing"
)

// Pane names are unique: a second start of a sandbox, or a run under a
// name taken, gets -2, so ctl finds each by its name; twenty ad-hoc
// commands that start alike are told apart by their words.
func TestPaneNamesAreUnique(t *testing.T) {
	cfg := "[[sandbox]]\nname = \"shell-1\"\ncommand = \"exec cat\"\n"
	s := startCtlServer(t, cfg, "echo pane1; exec cat", "echo pane2; exec cat", "cat", "cat")
	s.ok("start", "shell-1")
	s.ok("start", "shell-1")
	s.ok("run", "--name", "cat", "--", "cat")
	var names []string
	for _, si := range s.sessions() {
		names = append(names, si.Name)
	}
	want := []string{"echo pane1", "echo pane2", "cat", "cat-2", "shell-1", "shell-1-2", "cat-3"}
	if !slices.Equal(names, want) {
		t.Fatalf("pane names %q, want %q", names, want)
	}
	s.ok("send", "shell-1", `one\n`)
	s.waitScreen("5", "one")
	s.ok("send", "shell-1-2", `two\n`)
	s.waitScreen("6", "two")
	s.waitScreen("echo pane2", "pane2")
}
