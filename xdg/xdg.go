// Package xdg finds sandmux's directories as the XDG base directory spec
// places them: config (the config file), state (the server's log, the
// snapshot store, the SSH host key) and data (workspaces).
//
// xdg owns only where the directories are; it creates nothing.
package xdg

import (
	"fmt"
	"os"
	"path/filepath"
)

// State is $XDG_STATE_HOME/sandmux, else ~/.local/state/sandmux. A
// relative $XDG_STATE_HOME is ignored, as the spec says.
func State() (string, error) { return dir("XDG_STATE_HOME", filepath.Join(".local", "state")) }

// Config is $XDG_CONFIG_HOME/sandmux, else ~/.config/sandmux.
func Config() (string, error) { return dir("XDG_CONFIG_HOME", ".config") }

// Data is $XDG_DATA_HOME/sandmux, else ~/.local/share/sandmux.
func Data() (string, error) { return dir("XDG_DATA_HOME", filepath.Join(".local", "share")) }

func dir(env, fallback string) (string, error) {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return filepath.Join(d, "sandmux"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to keep sandmux's files under: %w; set %s or HOME", err, env)
	}
	return filepath.Join(home, fallback, "sandmux"), nil
}
