package sshattach

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	ok := Config{Listen: "127.0.0.1:0", AuthorizedKeys: "k"}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		err  string
	}{
		{name: "ok", edit: func(*Config) {}},
		{name: "no listen", edit: func(c *Config) { c.Listen = "" }, err: "ssh_listen"},
		{name: "no keys", edit: func(c *Config) { c.AuthorizedKeys = "" }, err: "ssh_authorized_keys"},
		{name: "negative", edit: func(c *Config) { c.MaxConns = -1 }, err: "negative"},
		{name: "idle under keep-alive", edit: func(c *Config) { c.KeepAlive, c.IdleTimeout = time.Minute, time.Second }, err: "longer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Validate() = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestDefaultHostKeyPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got, err := DefaultHostKeyPath(); err != nil || got != "/state/sandmux/ssh_host_ed25519_key" {
		t.Errorf("with XDG_STATE_HOME: %q, %v", got, err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "relative/is/ignored")
	want := filepath.Join(home, ".local", "state", "sandmux", "ssh_host_ed25519_key")
	if got, err := DefaultHostKeyPath(); err != nil || got != want {
		t.Errorf("without XDG_STATE_HOME: %q, %v; want %q", got, err, want)
	}
}

func TestNewNamesAMissingKeysFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	_, err := New(Config{Listen: "127.0.0.1:0", ReadOnlyKeys: missing, HostKeyPath: filepath.Join(dir, "host")})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("New = %v, want an error naming %s", err, missing)
	}
	if _, err := os.Stat(filepath.Join(dir, "host")); err == nil {
		t.Errorf("a host key was generated although New failed first")
	}
}

func TestNewReportsAnAddressInUse(t *testing.T) {
	dir := t.TempDir()
	pub := newPublicKey(t)
	keys := filepath.Join(dir, "keys")
	writeFile(t, keys, authorizedLine(pub)+"\n")
	cfg := Config{Listen: "127.0.0.1:0", AuthorizedKeys: keys, HostKeyPath: filepath.Join(dir, "host")}
	first, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_ = first.Serve(ctx, nil) // Releases the listener; no connection is served.
	}()
	cfg.Listen = first.Addr().String()
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), cfg.Listen) {
		t.Fatalf("second New on %s = %v, want an error naming the address in use", cfg.Listen, err)
	}
}
