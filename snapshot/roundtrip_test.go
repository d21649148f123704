package snapshot

import (
	"strings"

	"context"
	"errors"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundTripKeepsEverything(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	before := treeHash(t, ws)
	archive := filepath.Join(t.TempDir(), "snap.tar.zst")
	m, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{Sandbox: "sb", Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Files != 5 || m.Symlinks != 3 || m.NoteCount != 0 {
		t.Errorf("manifest counts files=%d symlinks=%d notes=%v", m.Files, m.Symlinks, m.Notes)
	}
	if treeHash(t, ws) != before {
		t.Fatal("save changed the workspace")
	}
	for _, replace := range []bool{false, true} {
		dst := filepath.Join(t.TempDir(), "restored")
		if replace {
			if err := os.MkdirAll(filepath.Join(dst, "old/stuff"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		r, err := Restore(context.Background(), archive, dst, RestoreOptions{Replace: replace})
		if err != nil {
			t.Fatal(err)
		}
		if r.Manifest == nil || r.SHA256 != m.SHA256 {
			t.Errorf("report %+v does not match manifest %+v", r, m)
		}
		if got := treeHash(t, dst); got != before {
			t.Errorf("replace=%v: restored tree differs\nwant:\n%s\ngot:\n%s", replace, treeListing(t, ws), treeListing(t, dst))
		}
		siblings, _ := os.ReadDir(filepath.Dir(dst))
		if len(siblings) != 1 {
			t.Errorf("restore left %d entries beside the workspace, want only it", len(siblings))
		}
	}
	if _, err := Verify(context.Background(), archive, VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestRestoreRefusesNonEmptyWithoutReplace(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	archive := filepath.Join(t.TempDir(), "snap.tar.zst")
	if _, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := os.WriteFile(filepath.Join(dst, "keep"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dst)
	_, err := Restore(context.Background(), archive, dst, RestoreOptions{})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("got %v, want ErrNotEmpty", err)
	}
	if treeHash(t, dst) != before {
		t.Fatal("refused restore changed the workspace")
	}
}

// TestRoundTripFromTarStream saves what GNU tar exports (as a provider
// would) and restores the same tree.
func TestRoundTripFromTarStream(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	archive := filepath.Join(t.TempDir(), "snap.tar.zst")
	if _, err := Save(context.Background(), tarOf(ws), archive, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if _, err := Restore(context.Background(), archive, dst, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if treeHash(t, dst) != treeHash(t, ws) {
		t.Errorf("restored tree differs\nwant:\n%s\ngot:\n%s", treeListing(t, ws), treeListing(t, dst))
	}
}

// TestSaveLeavesOutWhatRestoreWouldRefuse: a snapshot is always
// restorable; what it left out is in the manifest's notes.
func TestSaveLeavesOutWhatRestoreWouldRefuse(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	for name, target := range map[string]string{"abs": "/etc/passwd", "up": "../outside"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "snap.tar.zst")
	m, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var noted []string
	for _, n := range m.Notes {
		noted = append(noted, n.Path)
	}
	if got := strings.Join(noted, " "); got != "abs fifo up" {
		t.Errorf("notes %+v", m.Notes)
	}
	if _, err := Restore(context.Background(), archive, filepath.Join(t.TempDir(), "out"), RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestSaveIntoItsOwnWorkspace: an archive written inside the directory it
// saves does not contain its own temp file.
func TestSaveIntoItsOwnWorkspace(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	archive := filepath.Join(ws, "snap.tar.zst")
	m, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Files != 5 || m.NoteCount != 0 {
		t.Errorf("files %d, notes %+v: want the workspace without the archive", m.Files, m.Notes)
	}
}
