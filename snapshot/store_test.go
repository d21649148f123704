package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestStoreKeepsNewestAndListsByTime(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	s := &Store{Root: t.TempDir(), Keep: 3}
	base := time.Date(2026, 11, 29, 7, 26, 44, 123e6, time.UTC)
	var saved []Entry
	for i := 0; i < 5; i++ {
		e, err := s.Save(context.Background(), "agent-1", DirSource(ws), SaveOptions{Provider: "local", Created: base.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, e)
	}
	if got := filepath.Base(saved[0].Path); got != "20261129T072644.123Z.tar.zst" {
		t.Errorf("name %q, want a sortable UTC time", got)
	}
	list, err := s.List("agent-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].Path != saved[2].Path || list[2].Path != saved[4].Path {
		t.Fatalf("list %+v, want the newest 3 oldest first", list)
	}
	for _, e := range list {
		if e.Manifest == nil || e.Manifest.Files != 5 || e.Manifest.Sandbox != "agent-1" || e.Size != e.Manifest.ArchiveSize {
			t.Errorf("entry %+v (manifest %+v)", e, e.Manifest)
		}
	}
	newest, ok, err := s.Newest("agent-1")
	if err != nil || !ok || newest.Path != saved[4].Path {
		t.Errorf("newest %v %v %v", newest.Path, ok, err)
	}
	// Pruned snapshots take their manifests with them.
	if n := names(t, s.Dir("agent-1")); strings.Count(n, "\n") != 6 {
		t.Errorf("directory holds:\n%s", n)
	}
	if _, ok, err := s.Newest("nobody"); ok || err != nil {
		t.Errorf("a sandbox without snapshots: %v %v", ok, err)
	}
}

func TestStoreSameMillisecondDoesNotOverwrite(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	s := &Store{Root: t.TempDir()}
	at := time.Now()
	a, err := s.Save(context.Background(), "sb", DirSource(ws), SaveOptions{Created: at})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Save(context.Background(), "sb", DirSource(ws), SaveOptions{Created: at})
	if err != nil {
		t.Fatal(err)
	}
	if a.Path == b.Path || !b.Time.After(a.Time) {
		t.Errorf("second save %s, first %s", b.Path, a.Path)
	}
}

// TestStoreNeverListsTempFiles: a save in progress (locked temp file), a
// crashed one (stale, unlocked) and an orphan manifest are not listed; the
// stale ones are cleaned up by the next save, the live one is not.
func TestStoreNeverListsTempFiles(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	s := &Store{Root: t.TempDir()}
	dir := s.Dir("sb")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	live, err := createTemp(filepath.Join(dir, "20261129T000000.000Z.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.abort()
	stale := filepath.Join(dir, ".20261128T000000.000Z.tar.zst"+tempMarker+"123")
	orphan := filepath.Join(dir, "20261127T000000.000Z.tar.zst"+ManifestSuffix)
	old := time.Now().Add(-2 * staleAge)
	for _, p := range []string{stale, orphan} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(live.f.Name(), old, old); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(""); len(list) != 0 {
		t.Fatalf("listed %+v", list)
	}
	if _, err := s.Save(context.Background(), "sb", DirSource(ws), SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := s.List("")
	if err != nil || len(list) != 1 {
		t.Fatalf("list %+v %v", list, err)
	}
	if exists(stale) || exists(orphan) {
		t.Error("stale temp file or orphan manifest survived a save")
	}
	if !exists(live.f.Name()) {
		t.Error("removed the temp file of a save in progress")
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(live.f.Fd()), &st); err != nil || st.Nlink != 1 {
		t.Error("the live temp file was unlinked")
	}
}

func TestStoreRefusesBadSandboxNames(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	for _, name := range []string{"", ".", "..", "a/b", ".hidden"} {
		if _, err := s.Save(context.Background(), name, DirSource(t.TempDir()), SaveOptions{}); err == nil {
			t.Errorf("%q accepted", name)
		}
	}
}
