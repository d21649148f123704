package sshattach

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	gossh "golang.org/x/crypto/ssh"
)

// access is what a key may do once attached.
type access int

const (
	denied access = iota
	readOnly
	readWrite
)

func (a access) String() string {
	switch a {
	case readOnly:
		return "read-only"
	case readWrite:
		return "read-write"
	}
	return "denied"
}

// maxKeysFile bounds how much of a keys file is read: a file this large is
// a mistake, and reading it on every connection attempt would cost.
const maxKeysFile = 1 << 20

// keyFiles are the two files that grant access. They are read again on
// every authentication attempt, so an edit takes effect for the next
// connection without a restart.
type keyFiles struct{ readWrite, readOnly string }

// check reads both files once, so a missing or malformed file is an error
// when the server starts rather than a refusal on the first attach.
func (k keyFiles) check() error {
	for _, path := range []string{k.readWrite, k.readOnly} {
		if _, err := readKeys(path); err != nil {
			return err
		}
	}
	return nil
}

// access says what key may do: read-write when the authorized keys hold
// it, read-only when only the read-only keys do.
func (k keyFiles) access(key gossh.PublicKey) (access, error) {
	rw, err := readKeys(k.readWrite)
	if err != nil {
		return denied, err
	}
	if containsKey(rw, key) {
		return readWrite, nil
	}
	ro, err := readKeys(k.readOnly)
	if err != nil {
		return denied, err
	}
	if containsKey(ro, key) {
		return readOnly, nil
	}
	return denied, nil
}

func containsKey(keys []gossh.PublicKey, key gossh.PublicKey) bool {
	want := key.Marshal()
	for _, k := range keys {
		if bytes.Equal(k.Marshal(), want) {
			return true
		}
	}
	return false
}

// readKeys reads an authorized_keys file; an empty path holds no keys.
func readKeys(path string) ([]gossh.PublicKey, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read ssh keys file: %w", err)
	}
	defer f.Close() //nolint:errcheck // Best effort: read-only, everything was read.
	if err := checkOwner(path, f); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeysFile+1))
	if err != nil {
		return nil, fmt.Errorf("read ssh keys file %s: %w", path, err)
	}
	if len(data) > maxKeysFile {
		return nil, fmt.Errorf("ssh keys file %s is larger than %d bytes: is it an authorized_keys file?", path, maxKeysFile)
	}
	return parseKeys(path, data)
}

// errOptions refuses a line with options (from=, command=, restrict…):
// sshattach does not enforce them, and a key that silently lost its
// restrictions would grant more than its owner wrote.
var errOptions = errors.New("options before the key are not supported: remove them or the line")

// parseKeys parses authorized_keys text: one key a line, blank lines and
// lines starting with # skipped. A line that is not a key is an error
// naming the file and the line, never skipped: a typo must not lock out
// or let in someone unnoticed.
func parseKeys(name string, data []byte) ([]gossh.PublicKey, error) {
	var keys []gossh.PublicKey
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, _, options, rest, err := gossh.ParseAuthorizedKey(line)
		if err == nil && len(options) > 0 {
			err = errOptions
		}
		if err == nil && len(bytes.TrimSpace(rest)) > 0 {
			err = errors.New("more than one key on the line")
		}
		if err != nil {
			return nil, fmt.Errorf("ssh keys file %s, line %d: %w", name, n+1, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// checkOwner refuses a keys file that someone else could have written, as
// sshd's StrictModes does (A15): the file, and the directory that holds
// it, must belong to this user (or root) and be writable by no group and
// no other user. Anyone who can write either can grant themselves access.
func checkOwner(path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read ssh keys file %s: %w", path, err)
	}
	if err := safeMode(fi); err != nil {
		return fmt.Errorf("ssh keys file %s %w: chmod go-w it (and chown it to yourself)", path, err)
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check the directory of ssh keys file %s: %w", path, err)
	}
	if err := safeMode(di); err != nil {
		return fmt.Errorf("the directory %s of ssh keys file %s %w: chmod go-w it, or move the file", dir, path, err)
	}
	return nil
}

// safeMode says what is wrong with fi's owner or mode, if anything.
func safeMode(fi os.FileInfo) error {
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("is writable by others (mode %04o)", m)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("belongs to uid %d, not to uid %d", uid, os.Getuid())
	}
	return nil
}
