package xdg

import (
	"path/filepath"
	"testing"
)

// The directories follow the environment, ignoring relative values.
func TestDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "/s")
	t.Setenv("XDG_DATA_HOME", "relative")
	if got, err := State(); err != nil || got != "/s/sandmux" {
		t.Errorf("State() = %q, %v", got, err)
	}
	if got, err := Data(); err != nil || got != filepath.Join(home, ".local/share/sandmux") {
		t.Errorf("Data() with a relative XDG_DATA_HOME = %q, %v", got, err)
	}
}
