package termsafe

import "testing"

func TestShellQuote(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"ls", "-l", "a/b.txt"}, "ls -l a/b.txt"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
		{[]string{"printf", "a\x1bb"}, `printf $'a\x1bb'`},
	} {
		if got := ShellQuote(c.words); got != c.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", c.words, got, c.want)
		}
	}
}
