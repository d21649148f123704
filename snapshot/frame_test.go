package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// saveTree saves a fresh writeTree workspace to dir/snap.tar.zst.
func saveTree(t *testing.T) (archive string, m *Manifest) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	archive = filepath.Join(t.TempDir(), "snap"+ArchiveSuffix)
	m, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{Sandbox: "sb"})
	if err != nil {
		t.Fatal(err)
	}
	return archive, m
}

// The manifest frame is invisible to other readers: the zstd CLI and a
// reader that knows nothing of the frame (an older sandmux) decode the
// whole file to the same tar stream, and such a reader's checksum of the
// whole file matches the manifest beside it.
func TestManifestFrameIsSkippedByOtherReaders(t *testing.T) {
	archive, m := saveTree(t)
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != m.SHA256 || int64(len(data)) != m.ArchiveSize {
		t.Fatalf("Save's manifest does not describe the whole file")
	}
	if m.DataSize >= m.ArchiveSize || m.DataSHA256 == "" {
		t.Fatalf("data %d of %d bytes, sha %q: no frame described", m.DataSize, m.ArchiveSize, m.DataSHA256)
	}
	sc, err := scan(context.Background(), bytes.NewReader(data), sha256.New(), Limits{}, discardSink{buf: make([]byte, copyBuffer)}, newReporter(nil))
	if err != nil {
		t.Fatalf("a reader unaware of the frame: %v", err)
	}
	if sc.SHA256 != m.SHA256 || sc.Files != m.Files {
		t.Errorf("a reader unaware of the frame sees %+v, the manifest beside says %+v", sc, m)
	}
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("zstd CLI not installed")
	}
	out, err := exec.Command("sh", "-c", "zstd -dc < "+archive+" | tar -tf -").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "./src/pkg/main.go") {
		t.Errorf("zstd | tar: %v\n%s", err, out)
	}
}

// The archive is authoritative: a manifest beside it that is stale,
// damaged or missing changes nothing for verify, restore or listing.
func TestManifestBesideIsOnlyACache(t *testing.T) {
	for name, beside := range map[string][]byte{
		"damaged": []byte("{not json"),
		"stale":   []byte(`{"version":1,"format":"tar+zstd","files":1,"archive_size":10,"sha256":"00","data_size":5,"data_sha256":"11"}`),
		"missing": nil,
	} {
		t.Run(name, func(t *testing.T) {
			archive, m := saveTree(t)
			if beside == nil {
				mustRemove(t, ManifestPath(archive))
			} else if err := os.WriteFile(ManifestPath(archive), beside, 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := Verify(context.Background(), archive, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Manifest == nil || r.Manifest.Files != m.Files || r.Manifest.DataSHA256 != m.DataSHA256 || r.SHA256 != m.SHA256 {
				t.Errorf("verify reports %+v with manifest %+v", r, r.Manifest)
			}
			got, err := ReadManifest(archive)
			if err != nil || got.Files != m.Files || got.ArchiveSize != m.ArchiveSize {
				t.Errorf("ReadManifest: %+v, %v", got, err)
			}
		})
	}
}

// A damaged frame, or damaged data under an intact frame, is refused.
func TestManifestFrameDamageIsRefused(t *testing.T) {
	archive, m := saveTree(t)
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		at   int64
		want error
	}{
		"frame json":   {m.DataSize + frameHeader + 2, ErrCorrupt},
		"frame header": {m.DataSize + 1, ErrCorrupt},
		"data":         {m.DataSize / 2, nil}, // ErrChecksum, or corrupt if zstd notices first
	} {
		t.Run(name, func(t *testing.T) {
			bad := bytes.Clone(data)
			bad[c.at] ^= 0x55
			p := filepath.Join(t.TempDir(), "bad"+ArchiveSuffix)
			if err := os.WriteFile(p, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Verify(context.Background(), p, VerifyOptions{})
			switch {
			case err == nil:
				t.Fatal("verify accepted a damaged archive")
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("got %v, want %v", err, c.want)
			case c.want == nil && !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrCorrupt):
				t.Fatalf("got %v, want a checksum or corruption error", err)
			}
		})
	}
}

// A manifest frame that claims more than a manifest can take is refused
// without reading or allocating that much.
func TestManifestFrameHugeClaimIsRefused(t *testing.T) {
	archive, _ := saveTree(t)
	f, err := os.OpenFile(archive, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0x7f}, info.Size()-int64(frameFooter)); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if _, err := Verify(context.Background(), archive, VerifyOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
}
