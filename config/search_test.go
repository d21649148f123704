package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
