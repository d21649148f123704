package sshattach

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

func newPublicKey(t testing.TB) gossh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustEd25519(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func authorizedLine(k gossh.PublicKey) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k)))
}

func TestParseKeys(t *testing.T) {
	a, b := newPublicKey(t), newPublicKey(t)
	for _, tc := range []struct {
		name, text string
		want       int
		err        string
	}{
		{name: "empty", text: "", want: 0},
		{name: "comments and blanks", text: "# who\n\n  \n" + authorizedLine(a) + " alice@laptop\n", want: 1},
		{name: "two keys, CRLF", text: authorizedLine(a) + "\r\n" + authorizedLine(b) + "\r\n", want: 2},
		{name: "options refused", text: "# x\nfrom=\"10.0.0.1\" " + authorizedLine(a) + "\n", err: "keys, line 2: options"},
		{name: "garbage refused", text: authorizedLine(a) + "\nnot a key\n", err: "keys, line 2:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := parseKeys("keys", []byte(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || len(keys) != tc.want {
				t.Fatalf("got %d keys, err %v; want %d", len(keys), err, tc.want)
			}
		})
	}
}

func TestKeyFilesAccess(t *testing.T) {
	dir := t.TempDir()
	rw, ro, both, other := newPublicKey(t), newPublicKey(t), newPublicKey(t), newPublicKey(t)
	rwPath, roPath := filepath.Join(dir, "rw"), filepath.Join(dir, "ro")
	writeFile(t, rwPath, authorizedLine(rw)+"\n"+authorizedLine(both)+"\n")
	writeFile(t, roPath, authorizedLine(ro)+"\n"+authorizedLine(both)+"\n")
	kf := keyFiles{readWrite: rwPath, readOnly: roPath}
	for _, tc := range []struct {
		key  gossh.PublicKey
		want access
	}{{rw, readWrite}, {ro, readOnly}, {both, readWrite}, {other, denied}} {
		if got, err := kf.access(tc.key); err != nil || got != tc.want {
			t.Errorf("access(%s) = %v, %v; want %v", gossh.FingerprintSHA256(tc.key), got, err, tc.want)
		}
	}
	// The files are read per attempt: an added key counts at once.
	writeFile(t, roPath, authorizedLine(other)+"\n")
	if got, err := kf.access(other); err != nil || got != readOnly {
		t.Errorf("after editing the read-only keys, access = %v, %v; want read-only", got, err)
	}
	// A file gone later refuses everyone, and says which file.
	if err := os.Remove(rwPath); err != nil {
		t.Fatal(err)
	}
	if got, err := kf.access(rw); got != denied || err == nil || !strings.Contains(err.Error(), rwPath) {
		t.Errorf("with %s removed, access = %v, %v; want denied and an error naming it", rwPath, got, err)
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseKeys checks that no keys file makes the parser panic, and that
// every key it accepts survives a round trip through authorized_keys.
func FuzzParseKeys(f *testing.F) {
	k := newPublicKey(f)
	f.Add([]byte(authorizedLine(k) + " c\n# x\n\n"))
	f.Add([]byte("ssh-ed25519 AAAA\n"))
	f.Add([]byte("command=\"x\" " + authorizedLine(k)))
	f.Add([]byte("\x00\xff\n\r\n#"))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := parseKeys("fuzz", data)
		if err != nil {
			return
		}
		for _, key := range keys {
			again, err := parseKeys("again", gossh.MarshalAuthorizedKey(key))
			if err != nil || len(again) != 1 || !containsKey(again, key) {
				t.Fatalf("key %q does not round-trip: %v", gossh.MarshalAuthorizedKey(key), err)
			}
		}
	})
}
