package sshattach

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// loadHostKey reads the host key at path, generating it first when it does
// not exist yet: an ed25519 key in OpenSSH format, mode 0600, in a
// directory made 0700. A key others may read is refused, as sshd does,
// because whoever reads it can impersonate the server.
func loadHostKey(path string) (gossh.Signer, error) {
	if err := ensureHostKey(path); err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("stat ssh host key %s: %w", path, err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("ssh host key %s is accessible by others (mode %04o): run chmod 600 %s", path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read ssh host key %s: %w", path, err)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("parse ssh host key %s: %w (remove it to have a new one generated)", path, err)
	}
	return signer, nil
}

// ensureHostKey generates the key at path unless a file is there. The key
// is written to a temporary file and linked into place, so two servers
// starting at once never see a half-written key, and neither replaces the
// other's.
func ensureHostKey(path string) error {
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // There, or unreadable: loadHostKey says which.
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the directory for the ssh host key: %w", err)
	}
	block, err := newHostKeyPEM()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".ssh_host_key-*")
	if err != nil {
		return fmt.Errorf("write ssh host key in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // Best effort: once linked, the name is spare.
	// CreateTemp makes the file 0600 already; Chmod says so explicitly.
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close() // Best effort: the chmod error is the one to report.
		return fmt.Errorf("write ssh host key %s: %w", path, err)
	}
	_, err = tmp.Write(pem.EncodeToMemory(block))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write ssh host key %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write ssh host key %s: %w", path, err)
	}
	return nil
}

func newHostKeyPEM() (*pem.Block, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate ssh host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "sandmux host key")
	if err != nil {
		return nil, fmt.Errorf("encode ssh host key: %w", err)
	}
	return block, nil
}
