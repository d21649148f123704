package sshattach

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

func TestHostKeyGeneratedOnceAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "sandmux", "ssh_host_ed25519_key")
	first, err := loadHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if first.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Errorf("host key type %s, want ed25519", first.PublicKey().Type())
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s mode %04o, want %04o", p, got, want)
		}
	}
	second, err := loadHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := gossh.FingerprintSHA256(first.PublicKey()), gossh.FingerprintSHA256(second.PublicKey()); a != b {
		t.Errorf("host key changed between loads: %s then %s", a, b)
	}
	left, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(left) != 1 {
		t.Errorf("the key's directory holds %v (%v), want only the key", left, err)
	}
}

func TestHostKeyReadableByOthersRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	if _, err := loadHostKey(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadHostKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("loadHostKey on a 0644 key = %v, want a refusal saying chmod 600", err)
	}
}
