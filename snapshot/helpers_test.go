package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// treeHash describes a tree completely: every path, type, permission bits,
// mtime (ns), size, content hash and symlink target. Two trees with the
// same hash are the same for a round trip.
func treeHash(t testing.TB, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", rel, info.Mode(), info.ModTime().UnixNano())
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(&b, " %d %x", len(data), sum[:8])
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " -> %s", target)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatalf("hash tree %s: %v", root, err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// treeListing is treeHash's input, for failure messages.
func treeListing(t testing.TB, root string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, _ := os.Lstat(p)
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %v %s\n", rel, info.Mode(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	return b.String()
}

// writeTree creates a small workspace with every kind of entry a round trip
// must keep: nested files with odd modes, an empty directory, symlinks
// inside the root (relative, to a directory, dangling inside), sub-second
// mtimes on files and directories.
func writeTree(t testing.TB, root string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "src/pkg"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "empty"), 0o750))
	must(os.MkdirAll(filepath.Join(root, "ro"), 0o755))
	must(os.WriteFile(filepath.Join(root, "README"), []byte("hello\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "src/pkg/main.go"), []byte(strings.Repeat("package main\n", 1000)), 0o600))
	must(os.WriteFile(filepath.Join(root, "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	must(os.WriteFile(filepath.Join(root, "ro/file"), nil, 0o444))
	rnd := make([]byte, 300_000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	must(os.WriteFile(filepath.Join(root, "src/blob.bin"), rnd, 0o640))
	must(os.Symlink("src/pkg/main.go", filepath.Join(root, "link-file")))
	must(os.Symlink("../src", filepath.Join(root, "src/pkg/up")))
	must(os.Symlink("missing", filepath.Join(root, "dangling")))
	must(os.Chmod(filepath.Join(root, "ro"), 0o555))
	// Times last, deepest first, so creating entries does not move them.
	base := time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)
	var paths []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		paths = append(paths, p)
		return nil
	})
	for i := len(paths) - 1; i >= 0; i-- {
		mt := base.Add(time.Duration(i) * time.Hour)
		must(lchtimes(paths[i], mt))
	}
}

// tarOf is a TarSource the way a provider builds one: GNU tar writing the
// workspace to the save's stream, stopped by the context.
func tarOf(dir string) Source {
	return TarSource(func(ctx context.Context, w io.Writer) error {
		cmd := exec.CommandContext(ctx, "tar", "--format=posix", "--hard-dereference", "-c", "-C", dir, ".")
		cmd.Stdout = w
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("tar: %w: %s", err, stderr.String())
		}
		return nil
	})
}
