package snapshot

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// FuzzExtract: any bytes as an archive never panic a restore, and never
// leave anything beside the workspace; what a successful restore creates
// stays inside it (no symlink resolves outside).
func FuzzExtract(f *testing.F) {
	// Plain tar seeds are small and end without the 1 KiB end-of-archive
	// blocks (a reader must cope anyway): the minimizer works byte by byte,
	// and big seeds would keep it busy for the whole run.
	trim := func(b []byte) []byte { return b[:len(b)-1024] }
	full := tarBytes(f, dir("./"), file("./a", "hello"), dir("./d/"), symlink("./d/l", "../a"), file("./d/b", "x"))
	f.Add(trim(tarBytes(f, file("a", "hi"))))
	f.Add(trim(tarBytes(f, symlink("l", "x"), file("l/b", ""))))
	f.Add(zstdBytes(f, full))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(full) // Writes to memory.
	_ = zw.Close()
	f.Add(gz.Bytes())
	f.Add(zstdBytes(f, tarBytes(f, file("../evil", "x"))))
	f.Add(zstdBytes(f, tarBytes(f, dir("a/"), symlink("a/l", ".."), symlink("b", "a/l/../x"))))
	f.Add(zstdBytes(f, tarBytes(f, entry{Name: "hl", Type: tar.TypeLink, Link: "a"})))
	f.Add(zstdBomb(f, 2))
	// With the manifest frame Save appends, so the fuzzer reaches its parser.
	data := zstdBytes(f, full)
	frame, err := manifestFrame(&Manifest{Version: ManifestVersion, Files: 2, Dirs: 2, Symlinks: 1, Bytes: 6,
		DataSize: int64(len(data)), DataSHA256: fmt.Sprintf("%x", sha256.Sum256(data))})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(data, frame...))
	// Thousands of throwaway trees: syncing each to disk would make the
	// fuzzer (and its minimizer) crawl without testing anything more.
	syncToDisk = false
	defer func() { syncToDisk = true }()
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		archive := filepath.Join(root, "archive")
		if err := os.WriteFile(archive, data, 0o600); err != nil {
			t.Fatal(err)
		}
		parent := filepath.Join(root, "parent")
		ws := filepath.Join(parent, "ws")
		_, err := Restore(context.Background(), archive, ws, RestoreOptions{Limits: Limits{MaxBytes: 1 << 20, MaxMembers: 64}})
		if n := names(t, root); n != "archive\nparent\n" {
			t.Fatalf("written beside the archive: %q", n)
		}
		want := ""
		if err == nil {
			want = "ws\n"
		}
		if n := names(t, parent); n != want {
			t.Fatalf("restore error %v; beside the workspace: %q", err, n)
		}
		if err != nil {
			return
		}
		_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			target, _ := os.Readlink(p)
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // Dangling or a loop: it leads nowhere.
			}
			if resolved != ws && !strings.HasPrefix(resolved, ws+"/") {
				t.Errorf("symlink %s -> %s resolves outside the workspace to %s", p, target, resolved)
			}
			return nil
		})
	})
}
