package providers

import (
	"errors"
	"syscall"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]Size{"80x24": {80, 24}, " 200X50 ": {200, 50}, "1x1": {1, 1}} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "80", "80x", "x24", "0x24", "80x0", "-1x5", "10000x10", "axb", "80x24x2"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}

func TestExitStatus(t *testing.T) {
	cases := []struct {
		st   ExitStatus
		code int
		text string
	}{
		{ExitStatus{Code: 0}, 0, "exited 0"},
		{ExitStatus{Code: 3}, 3, "exited 3"},
		{ExitStatus{Code: -1, Signal: syscall.SIGTERM}, 143, "killed by SIGTERM"},
		{ExitStatus{Code: -1, Signal: syscall.SIGKILL}, 137, "killed by SIGKILL"},
		{ExitStatus{Code: -1, Unknown: true}, 1, "exited (status unknown)"},
	}
	for _, c := range cases {
		if got := c.st.ShellCode(); got != c.code {
			t.Errorf("%+v.ShellCode() = %d, want %d", c.st, got, c.code)
		}
		if got := c.st.String(); got != c.text {
			t.Errorf("%+v.String() = %q, want %q", c.st, got, c.text)
		}
	}
}

func TestTableLookup(t *testing.T) {
	tab := Table{"local": nil, "ssh": nil}
	if _, err := tab.Lookup("local"); err != nil {
		t.Error(err)
	}
	_, err := tab.Lookup("dokcer")
	if !errors.Is(err, ErrUnknownProvider) || err.Error() != `unknown provider "dokcer": use one of local, ssh` {
		t.Errorf("Lookup error = %v", err)
	}
}
