package local

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// readSmall reads what os.ReadFile would: a file within its buffer, one
// that fills it (read again whole), and a kernel file; a missing file is
// os.ErrNotExist.
func TestReadSmall(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	if err := os.WriteFile(small, []byte("usage_usec 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{small, big, "/proc/self/stat"} {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readSmall(path, make([]byte, 64))
		if err != nil || (path != "/proc/self/stat" && !bytes.Equal(got, want)) || len(got) == 0 {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := readSmall(filepath.Join(dir, "none"), make([]byte, 64)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}
