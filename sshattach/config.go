package sshattach

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sandmux/sandmux/xdg"
)

// Config says where to listen and who may attach. Zero durations and
// limits take the defaults of DefaultConfig.
type Config struct {
	// Listen is the TCP address to listen on ("127.0.0.1:2222").
	Listen string
	// AuthorizedKeys is a file in authorized_keys format: its keys may
	// attach and type.
	AuthorizedKeys string
	// ReadOnlyKeys is a file in authorized_keys format: its keys may
	// attach read-only. A key in both files attaches read-write.
	ReadOnlyKeys string
	// HostKeyPath is the server's ed25519 host key, generated on first use
	// (DefaultHostKeyPath when empty).
	HostKeyPath string
	// Log receives one line per attach, detach and refusal, naming the
	// user, the key's fingerprint and the remote address, remote text
	// already escaped. It is called from many goroutines at once. Nil
	// discards the lines.
	Log func(msg string)

	// MaxConns bounds the connections served at once once authenticated
	// (and the session channels open); a key authenticating one more is
	// refused, and logged.
	MaxConns int
	// MaxHandshakes bounds the connections not authenticated yet; one
	// more closes the oldest of them, so that strangers who open
	// connections and never finish cannot keep a user out.
	MaxHandshakes int
	// HandshakeTimeout bounds a connection's handshake and authentication.
	HandshakeTimeout time.Duration
	// KeepAlive is how often an attached client is asked to answer, so a
	// peer that vanished without closing is noticed; IdleTimeout is how
	// long without a byte from it before its connection is closed.
	KeepAlive, IdleTimeout time.Duration
	// WriteTimeout bounds one write to an attached client: one that takes
	// no output for this long (stopped, or never reading) is cut off, as
	// a local client is.
	WriteTimeout time.Duration
	// ShutdownGrace is how long Serve, once its context ended, lets
	// clients read their last bytes and hang up before it closes their
	// connections.
	ShutdownGrace time.Duration
}

// DefaultConfig returns the defaults for every bound; Listen and the key
// files are the caller's to fill.
func DefaultConfig() Config {
	return Config{
		MaxConns:         16,
		MaxHandshakes:    64,
		HandshakeTimeout: 10 * time.Second,
		KeepAlive:        30 * time.Second,
		IdleTimeout:      95 * time.Second,
		ShutdownGrace:    2 * time.Second,
		WriteTimeout:     10 * time.Second,
	}
}

// withDefaults fills zero bounds from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.MaxConns == 0 {
		c.MaxConns = d.MaxConns
	}
	if c.MaxHandshakes == 0 {
		c.MaxHandshakes = d.MaxHandshakes
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = d.HandshakeTimeout
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = d.KeepAlive
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = d.IdleTimeout
	}
	if c.ShutdownGrace == 0 {
		c.ShutdownGrace = d.ShutdownGrace
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = d.WriteTimeout
	}
	if c.Log == nil {
		c.Log = func(string) {}
	}
	return c
}

// Validate rejects a config the server cannot run with, saying which
// setting to change.
func (c Config) Validate() error {
	if c.Listen == "" {
		return errors.New("ssh: no listen address: set server.ssh_listen, e.g. \"127.0.0.1:2222\"")
	}
	if c.AuthorizedKeys == "" && c.ReadOnlyKeys == "" {
		return errors.New("ssh: no key may attach: set server.ssh_authorized_keys or server.ssh_read_only_keys")
	}
	if c.MaxConns < 0 || c.MaxHandshakes < 0 || c.HandshakeTimeout < 0 || c.KeepAlive < 0 || c.IdleTimeout < 0 || c.ShutdownGrace < 0 || c.WriteTimeout < 0 {
		return errors.New("ssh: limits and timeouts must not be negative")
	}
	if c.IdleTimeout != 0 && c.KeepAlive != 0 && c.IdleTimeout <= c.KeepAlive {
		return fmt.Errorf("ssh: idle timeout %v must be longer than the keep-alive interval %v, or idle clients are dropped", c.IdleTimeout, c.KeepAlive)
	}
	return nil
}

// DefaultHostKeyPath is where the host key lives unless configured:
// $XDG_STATE_HOME/sandmux/ssh_host_ed25519_key, else under
// ~/.local/state/sandmux/.
func DefaultHostKeyPath() (string, error) {
	state, err := xdg.State()
	if err != nil {
		return "", fmt.Errorf("find the state directory for the ssh host key: %w", err)
	}
	return filepath.Join(state, "ssh_host_ed25519_key"), nil
}
