package sshattach

import (
	"regexp"
	"strings"
	"testing"
)

// termNameRE is the rule isTermName hand-codes, kept here as its oracle.
var termNameRE = regexp.MustCompile(`^[A-Za-z0-9._+-]{1,64}$`)

func TestIsTermName(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"xterm-256color", true},
		{"screen.xterm-256color", true},
		{"truecolor", true},
		{"a+b_c", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false},
		{"", false},
		{"xterm 256", false},
		{"xterm\x1b[31m", false},
		{"xterm\n", false},
		{"xtérm", false},
		{"../../etc", false},
	} {
		if got := isTermName(c.s); got != c.want || got != termNameRE.MatchString(c.s) {
			t.Errorf("isTermName(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func FuzzIsTermName(f *testing.F) {
	for _, s := range []string{"xterm-256color", "", "a\x00", strings.Repeat("y", 65), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isTermName(s), termNameRE.MatchString(s); got != want {
			t.Fatalf("isTermName(%q) = %v, the regexp says %v", s, got, want)
		}
	})
}
